//go:build linux && !(amd64 || arm64 || riscv64 || loong64)

package tokens

import (
	"syscall"
	"unsafe"
)

// On other architectures Read and Write make the call through the standard
// library, which knows how the architecture reports a failure (some use a
// flag register rather than a negated errno).

// Read is read(2) of fd, as a raw system call.
func Read(fd int32, p []byte) Result {
	return result(syscall.RawSyscall(syscall.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p))))
}

// Write is write(2) to fd, as a raw system call.
func Write(fd int32, p []byte) Result {
	return result(syscall.RawSyscall(syscall.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p))))
}

func result(r, _ uintptr, e syscall.Errno) Result {
	if e != 0 {
		return -Result(e)
	}
	return Result(r)
}
