package waitcall

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// SleepFully sleeps for d, through signals: a sleep ended by one (EINTR)
// goes on for the time that remained, which the kernel leaves in rem. It
// sleeps as a Mechanism waits, in a raw system call that keeps the thread's
// P (the reader's -delay before every readiness call); nanosleep is never
// restarted after a signal, and each retry goes through nanosleep's
// prologue, where a goroutine the runtime asked to stop does so.
func SleepFully(d, rem *unix.Timespec) error {
	e := nanosleep(d, rem)
	for e == unix.EINTR {
		e = nanosleep(rem, rem)
	}
	if e != 0 {
		return e
	}
	return nil
}

//go:noinline
func nanosleep(d, rem *unix.Timespec) unix.Errno {
	_, _, e := syscall.RawSyscall(unix.SYS_NANOSLEEP, uintptr(unsafe.Pointer(d)), uintptr(unsafe.Pointer(rem)), 0)
	return e
}
