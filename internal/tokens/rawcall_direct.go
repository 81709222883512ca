//go:build linux && (amd64 || arm64 || riscv64 || loong64)

package tokens

import "golang.org/x/sys/unix"

// rawCall3 makes a three-argument system call that never blocks, with x/sys's
// unix.RawSyscallNoError: its assembly loads the arguments, makes the call
// and returns the kernel's result as it is. On these architectures the
// kernel reports a failure as a result in [-4095, -1], the negated errno
// (syscall(2)), which rawCall3 turns into (-1, errno) as the standard
// library does.
func rawCall3(trap, a1, a2, a3 uintptr) (int, unix.Errno) {
	r, _ := unix.RawSyscallNoError(trap, a1, a2, a3)
	if r > maxResult {
		return -1, unix.Errno(-r)
	}
	return int(r), 0
}

// maxResult is the largest result that is not a negated errno: -4096.
const maxResult = ^uintptr(4095)
