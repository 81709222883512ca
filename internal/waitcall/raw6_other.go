//go:build !amd64

package waitcall

import "syscall"

// On architectures other than amd64, Raw6 is the standard library's raw
// call, its errno folded back into the kernel's negated result, so that
// Split reads both alike. Some of them report a failure in a flag
// register rather than as a negated result; the standard library knows
// which.

// Raw6 is raw6_amd64.go's Raw6 on other architectures.
//
//go:nosplit
func Raw6(trap, a1, a2, a3, a4, a5, a6 uintptr) uintptr {
	r, _, e := syscall.RawSyscall6(trap, a1, a2, a3, a4, a5, a6)
	if e != 0 {
		return uintptr(-int(e))
	}
	return r
}
