//go:build linux && !(amd64 || arm64 || riscv64 || loong64)

package tokens

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// On other architectures Read, Write and pollIn make the call through the
// standard library, which knows how the architecture reports a failure
// (some use a flag register rather than a negated errno).

// Read is read(2) of fd, as a raw system call.
func Read(fd int32, p []byte) Result {
	return result(syscall.RawSyscall(syscall.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p))))
}

// Write is write(2) to fd, as a raw system call.
func Write(fd int32, p []byte) Result {
	return result(syscall.RawSyscall(syscall.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p))))
}

// pollIn is ppoll(2) of one descriptor with no timeout and no signal mask.
func pollIn(pfd *unix.PollFd) Result {
	return result(syscall.RawSyscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(pfd)), 1, 0, 0, 0, 0))
}

func result(r, _ uintptr, e syscall.Errno) Result {
	if e != 0 {
		return -Result(e)
	}
	return Result(r)
}
