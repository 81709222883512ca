package tokens

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// The hot loops read and write non-blocking descriptors with raw system
// calls: these calls never block, so the scheduler need not be told.
//
// Read and Write make the call (rawcall_*.go): on the common architectures
// that is x/sys's unix.RawSyscallNoError, whose assembly makes the SYSCALL
// itself and returns once, where the standard
// library's syscall.RawSyscall returns through three frames (RawSyscall,
// RawSyscall6, internal/runtime/syscall/linux.Syscall6). Returns right
// after a system call are slow here (perf annotate puts most of the user
// time of a read at the instructions after each return): one A/B
// alternation, 15 runs each on a busy machine, gave 1.5% more evts/sec at
// -b epoll -n 1000 -l 10 (self), 2% with a writer thread and 4% at -b poll
// -n 10 -l 1 (docs/speed.md).

// Read (read(2)) and Write (write(2)) of a non-blocking descriptor are
// defined per architecture, in rawcall_*.go; each returns a Result, which
// splits into the bytes moved, or -1 and the error. They are small enough
// to inline (go build -gcflags=-m; TestReadWriteInline), so that the hot
// loops reach the system call through no frame of ours: the frames between
// the reader's loop and its system calls cost about 1% of evts/sec at one
// event per call (docs/speed.md).

// Result is what a raw read or write returns, as the kernel returns it:
// the bytes moved, or a negated errno.
type Result int

// Split returns the bytes moved and 0, or -1 and the error, as the
// standard library's system calls do.
func (r Result) Split() (int, unix.Errno) {
	if r < 0 {
		return -1, unix.Errno(-r)
	}
	return int(r), 0
}

// WriteErr is the error of a write of a size-byte token that returned n
// and e, when it did not write the token whole: e, or a short write. A
// token written in part is never a token sent; its bytes tear the stream.
func WriteErr(n, size int, e unix.Errno) error {
	if e != 0 {
		return e
	}
	return &shortWriteError{wrote: n, size: size}
}

type shortWriteError struct{ wrote, size int }

func (e *shortWriteError) Error() string {
	return fmt.Sprintf("short write: %d bytes of a %d-byte token", e.wrote, e.size)
}

// The writer's wait for credits is a raw system call, as the Mechanism
// contract requires of a wait: the thread keeps its P, so the Go scheduler
// neither hands it off nor has to win it back on waking. Where it sleeps
// depends on whom it shares its process with:
//
//   - In the writer process it is alone: it sleeps in read(2), as a C
//     program's writer does. A signal does not end that sleep (the
//     runtime's handlers restart it), so a stop-the-world there would
//     wait for the next credit; nothing in that process stops the world
//     while it writes, and the reader, in its own process, keeps sending
//     credits.
//   - Beside the reader (thread mode, and the herd's writer) it must sleep
//     where a signal ends the sleep: a stop-the-world that had stopped the
//     reader would otherwise wait for credits that only the reader sends.
//     It sleeps in ppoll(2) (awaitReadable), then reads: one system call
//     more per sleep than C's read (the yardstick's -credit-wait read
//     shows what it costs: tools/yardstick/README.md). The signal that ends
//     that sleep is the runtime's preemption signal: with asynchronous
//     preemption off (GODEBUG=asyncpreemptoff=1) none is sent, and the
//     harnesses refuse such a writer (AsyncPreemptOff).
//
// Writer.Run makes the wait in its own body, so that after the sleep only
// the wait's frames return (awaitReadable's and the system call's).

// awaitReadable sleeps until fd is readable or hung up. A signal ends the
// sleep with EINTR; the caller's loop then calls awaitReadable again, and
// that call's prologue is where the goroutine stops if the runtime asked it
// to (preemption, a stop-the-world), so it is kept out of line.
//
//go:noinline
func awaitReadable(fd int32) unix.Errno {
	pfd := unix.PollFd{Fd: fd, Events: unix.POLLIN}
	_, e := pollIn(&pfd).Split()
	return e
}
