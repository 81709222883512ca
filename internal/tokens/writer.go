package tokens

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// StopWord, sent on the credit pipe as a credit word, tells the writer to
// stop.
const StopWord = ^uint64(0)

// checkEvery is how many token writes an unbounded writer makes between two
// looks at its credit pipe for the stop word.
const checkEvery = 1024

// Writer forwards tokens into the pipes' write ends, InFlight at a time: it
// writes one for every credit that comes back on the credit pipe. With
// InFlight 0 it never waits (the unbounded writer). The same loop runs on a
// thread of the reading process, in the writer process and in the herd.
//
// It stops when the window closes: Stop is loaded before every write and
// every wait for credits (a flag shared with the writer process through
// memory, so that looking costs no system call), and the stop word on the
// credit pipe wakes a writer asleep in its wait. Its Counts are of the
// system calls it made until then. A write that fails ends the run and is
// not counted.
type Writer struct {
	WFDs     []int32
	Route    Router
	InFlight int
	Credits  int32 // read end of the credit pipe
	// Alone: the writer is alone in its process (the writer process) and
	// sleeps in read(2) for credits; otherwise in ppoll(2) (syscalls.go).
	Alone  bool
	Stop   *atomic.Bool
	Format Format
	// Pace, when set, makes the writer open-loop (InFlight 0): it sends
	// its tokens on Pace's schedule instead of as fast as it can
	// (pace.go).
	Pace *Pace
	// LastTick is a paced writer's clock (Nanotime) at its last wake-up:
	// every token it sent was due by then.
	LastTick int64
	Counts   WriterCounts
	tokBuf   [8]byte
}

// WriterCounts are a writer's system calls: Writes, every write(2) of a
// token, those that found the pipe full included (unbounded mode; Full
// counts them), and Sent, those that wrote one; Reads, every read(2) of the
// credit pipe (credit words, the stop word, an unbounded or paced
// writer's looks for it that found nothing); Waits, every ppoll(2) for
// credits or, paced, every clock_nanosleep(2) until a tick, those ended
// by a signal included. A paced writer also counts its Ticks, the
// wake-ups at which it read the clock and wrote what was due, and
// MaxBacklog, the most tokens due and not yet written it found at a
// wake-up (about a tick's tokens while it keeps up).
type WriterCounts struct {
	Sent       uint64 `json:"sent"`
	Writes     uint64 `json:"writes"`
	Full       uint64 `json:"full"`
	Reads      uint64 `json:"reads"`
	Waits      uint64 `json:"waits"`
	Ticks      uint64 `json:"ticks,omitempty"`
	MaxBacklog uint64 `json:"max_backlog,omitempty"`
}

// Run writes tokens until the stop flag is set or the stop word arrives.
func (w *Writer) Run() error {
	if w.Pace != nil {
		return w.paced()
	}
	if w.InFlight == 0 {
		return w.unbounded()
	}
	var buf [4096]byte
	have := uint64(w.InFlight)
	c := &w.Counts
	fixed := w.fixedToken()
	for {
		for ; have > 0; have-- {
			if w.Stop.Load() {
				return nil
			}
			j := w.Route.Pick()
			tok := w.token(fixed)
			if n, e := Write(w.WFDs[j], tok).Split(); e != 0 || n != len(tok) {
				return fmt.Errorf("writer: write token to pipe %d (fd %d): %w", j, w.WFDs[j], WriteErr(n, len(tok), e))
			}
			c.Writes++
			c.Sent++
		}
		if w.Stop.Load() {
			return nil
		}
		// The wait for credits (syscalls.go says where it sleeps), in
		// Run's own body: after the sleep, no frame of ours but the
		// wait's own returns. Alone, the read is the wait, retried after a
		// signal; otherwise a ppoll, then a read, again until it reads.
		var n int
		var e unix.Errno
		for {
			if !w.Alone {
				c.Waits++
				if e = awaitReadable(w.Credits); e != 0 && e != unix.EINTR {
					break
				}
			}
			c.Reads++
			n, e = Read(w.Credits, buf[:]).Split()
			if e != unix.EINTR && (w.Alone || e != unix.EAGAIN) {
				break
			}
		}
		if e != 0 {
			return fmt.Errorf("writer: read credits: %w", e)
		}
		if n == 0 {
			return fmt.Errorf("writer: credit pipe closed before the stop word")
		}
		if n%8 != 0 {
			return fmt.Errorf("writer: torn credit message of %d bytes", n)
		}
		for i := 0; i < n; i += 8 {
			k := binary.LittleEndian.Uint64(buf[i:])
			if k == StopWord {
				return nil
			}
			have += k
		}
	}
}

// unbounded writes tokens without waiting for credits, counting those that
// find the pipe full, and looks for the stop word on the credit pipe every
// checkEvery writes (the stop flag ends it sooner; the stop word also ends
// a writer process whose reader is gone).
func (w *Writer) unbounded() error {
	var buf [8]byte
	c := &w.Counts
	fixed := w.fixedToken()
	for {
		for range checkEvery {
			if w.Stop.Load() {
				return nil
			}
			j := w.Route.Pick()
			tok := w.token(fixed)
			n, e := Write(w.WFDs[j], tok).Split()
			switch {
			case e == 0 && n == len(tok):
				c.Sent++
			case e == unix.EAGAIN:
				c.Full++
			default:
				return w.writeErr(j, n, len(tok), e)
			}
			c.Writes++
		}
		if stop, err := w.lookForStop(&buf); stop || err != nil {
			return err
		}
	}
}

// writeErr is the error of a token's write to pipe j that returned n and
// e.
func (w *Writer) writeErr(j, n, size int, e unix.Errno) error {
	return fmt.Errorf("writer: write token to pipe %d (fd %d): %w", j, w.WFDs[j], WriteErr(n, size, e))
}

// lookForStop reads the credit pipe of a writer that takes no credits
// (unbounded or paced), without waiting: stop says the stop word was
// there.
func (w *Writer) lookForStop(buf *[8]byte) (stop bool, err error) {
	w.Counts.Reads++
	n, e := Read(w.Credits, buf[:]).Split()
	switch {
	case e == unix.EAGAIN:
		return false, nil
	case e != 0:
		return false, fmt.Errorf("writer: read stop word: %w", e)
	case n == 0:
		return false, fmt.Errorf("writer: credit pipe closed before the stop word")
	case n == 8 && binary.LittleEndian.Uint64(buf[:]) == StopWord:
		return true, nil
	}
	return false, fmt.Errorf("writer: unexpected %d-byte message on the credit pipe of a writer that takes no credits", n)
}

// fixedToken is the token every write carries, or nil when each carries
// a time of its own (a Stamp): the loops call Format.Next once, not once a
// token, unless their tokens carry a time.
func (w *Writer) fixedToken() []byte {
	if w.Format == Stamp {
		return nil
	}
	return w.Format.Next(&w.tokBuf)
}

// token is the token to write now: fixed, or a fresh Stamp, whose clock
// read stays in Format.Next, out of the loops' own code (only -latency's
// tokens carry a time).
func (w *Writer) token(fixed []byte) []byte {
	if fixed != nil {
		return fixed
	}
	return w.Format.Next(&w.tokBuf)
}
