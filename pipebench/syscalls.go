package pipebench

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The hot loops read and write non-blocking descriptors with RawSyscall:
// these calls never block, so the scheduler need not be told. Blocking calls
// (the writer waiting for credits) use Syscall.
//
// rawRead and rawWrite call the standard library's syscall.RawSyscall
// themselves: x/sys's unix.RawSyscall is an assembly jump to that same
// function, and the extra frame on two calls per event cost about 2% of
// evts/sec against the C yardstick (yardstick/README.md).

var token = [1]byte{'t'}

func rawRead(fd int32, p []byte) (int, unix.Errno) {
	r, _, e := syscall.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return int(r), e
}

func rawWrite(fd int32, p []byte) (int, unix.Errno) {
	r, _, e := syscall.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return int(r), e
}

// blockingRead may sleep in the kernel, so it goes through Syscall.
func blockingRead(fd int32, p []byte) (int, unix.Errno) {
	for {
		r, _, e := unix.Syscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		if e != unix.EINTR {
			return int(r), e
		}
	}
}
