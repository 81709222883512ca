//go:build linux && !(amd64 || arm64 || riscv64 || loong64)

package tokens

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// rawCall3 makes a three-argument system call that never blocks, through
// the standard library, which knows how this architecture reports a failure
// (some use a flag register rather than a negated errno).
func rawCall3(trap, a1, a2, a3 uintptr) (int, unix.Errno) {
	r, _, e := syscall.RawSyscall(trap, a1, a2, a3)
	if e != 0 {
		return -1, e
	}
	return int(r), 0
}
