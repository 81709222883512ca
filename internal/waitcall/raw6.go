package waitcall

import "golang.org/x/sys/unix"

// A backend's wait call returns, when nothing interrupts it, straight into
// the backend's Wait, and Wait into the reader's loop. Returns that unwind
// frames made before a system call are slow: on the AMD EPYC VM, taking
// four such frames out of the reader's event saved 33-83 ns of user time
// a token (docs/speed.md), and a readiness call is made per event. Raw6
// is therefore the wait call's whole path from Wait to the kernel: one
// frame, where the standard library's syscall.RawSyscall6 returns through
// two (RawSyscall6, then internal/runtime/syscall/linux.Syscall6), and the
// result comes back as the kernel gives it, unconverted.

// Split returns Raw6's result as a count and 0, or 0 and the error, for
// the calls a Wait makes: each returns a count, never a negative value, when
// it works.
func Split(r uintptr) (int, unix.Errno) {
	if int(r) < 0 {
		return 0, unix.Errno(-int(r))
	}
	return int(r), 0
}
