//go:build linux && (amd64 || arm64 || riscv64 || loong64)

package tokens

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// On these architectures Read, Write and pollIn make the call with x/sys's
// unix.RawSyscallNoError: its assembly loads the arguments, makes the call
// and returns the kernel's result as it is, which reports a failure as a
// result in [-4095, -1], the negated errno (syscall(2)): what a Result
// holds. Each is one call of ours to the assembly, small enough to inline.

// Read is read(2) of fd, as a raw system call.
func Read(fd int32, p []byte) Result {
	r, _ := unix.RawSyscallNoError(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
	return Result(r)
}

// Write is write(2) to fd, as a raw system call.
func Write(fd int32, p []byte) Result {
	r, _ := unix.RawSyscallNoError(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
	return Result(r)
}

// pollIn is ppoll(2) of one descriptor with no timeout and no signal mask
// (RawSyscallNoError passes the other arguments as zero): a sleep until
// it is readable or hung up, which a signal ends (EINTR).
func pollIn(pfd *unix.PollFd) Result {
	r, _ := unix.RawSyscallNoError(unix.SYS_PPOLL, uintptr(unsafe.Pointer(pfd)), 1, 0)
	return Result(r)
}
