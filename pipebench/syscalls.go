package pipebench

import (
	"fmt"
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

// writeErr is the error of a write of a size-byte token that returned n
// and e, when it did not write the token whole: e, or a short write. A
// token written in part is never a token sent; its bytes tear the stream.
func writeErr(n, size int, e unix.Errno) error {
	if e != 0 {
		return e
	}
	return &shortWriteError{wrote: n, size: size}
}

type shortWriteError struct{ wrote, size int }

func (e *shortWriteError) Error() string {
	return fmt.Sprintf("short write: %d bytes of a %d-byte token", e.wrote, e.size)
}

// sleepFully sleeps for d, through signals: a sleep ended by one (EINTR)
// goes on for the time that remained, which the kernel leaves in rem.
func sleepFully(d, rem *unix.Timespec) error {
	err := unix.Nanosleep(d, rem)
	for err == unix.EINTR {
		err = unix.Nanosleep(rem, rem)
	}
	return err
}

// blockingRead reads fd, a non-blocking descriptor, sleeping in ppoll(2)
// until it is readable, and counts its system calls: every ppoll in waits,
// every read in reads. The sleep is a raw system call, as the Backend
// contract requires of a wait call: the thread keeps its P, so the Go
// scheduler neither hands it off nor has to win it back on wake-up.
func blockingRead(fd int32, p []byte, waits, reads *uint64) (int, unix.Errno) {
	for {
		*waits++
		if e := awaitReadable(fd); e != 0 && e != unix.EINTR {
			return 0, e
		}
		*reads++
		n, e := rawRead(fd, p)
		if e != unix.EAGAIN {
			return n, e
		}
	}
}

// awaitReadable sleeps until fd is readable or hung up. A signal ends the
// sleep with EINTR; the caller's loop then calls awaitReadable again, and
// that call's prologue is where the goroutine stops if the runtime asked it
// to (preemption, a stop-the-world), so it is kept out of line.
//
//go:noinline
func awaitReadable(fd int32) unix.Errno {
	pfd := unix.PollFd{Fd: fd, Events: unix.POLLIN}
	_, _, e := syscall.RawSyscall6(unix.SYS_PPOLL, uintptr(unsafe.Pointer(&pfd)), 1, 0, 0, 0, 0)
	return e
}
