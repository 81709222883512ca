package pipebench

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// The hot loops read and write non-blocking descriptors with RawSyscall:
// these calls never block, so the scheduler need not be told. Blocking calls
// (the writer waiting for credits) use Syscall.

var token = [1]byte{'t'}

func rawRead(fd int32, p []byte) (int, unix.Errno) {
	r, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return int(r), e
}

func rawWrite(fd int32, p []byte) (int, unix.Errno) {
	r, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
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
