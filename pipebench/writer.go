package pipebench

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// stopCredit, sent on the credit pipe, tells the writer to stop.
const stopCredit = ^uint64(0)

// checkEvery is how many token writes an unbounded writer makes between two
// looks at its credit pipe for the stop word.
const checkEvery = 1024

// writer forwards tokens into the pipes' write ends. The same loop runs on a
// thread of the reading process or in the writer process.
//
// It stops when the window closes: stop is loaded before every write and
// every wait for credits (a flag shared with the writer process through
// memory, so that looking costs no system call), and the stop word on the
// credit pipe wakes a writer asleep in its wait. Its counts are of the
// system calls it made until then: writes, every write(2) of a token,
// those that found the pipe full included (unbounded mode; full counts
// them), and sent, those that wrote one; reads, every read(2) of the
// credit pipe (credit words, the stop word, an unbounded writer's looks
// for it that found nothing); waits, every ppoll(2) for credits, those
// ended by a signal included. A write that fails ends the run and is not
// counted.
type writer struct {
	wfds     []int32
	route    router
	inFlight int
	credits  int32 // read end of the credit pipe
	alone    bool  // in the writer process: sleep in read(2) (syscalls.go)
	stop     *atomic.Bool
	sent     uint64
	writes   uint64
	full     uint64 // unbounded mode: writes that found the pipe full
	reads    uint64
	waits    uint64
	latency  bool // tokens carry their write time (stamp.go)
	eventfd  bool // a token adds 1 to an eventfd counter
	tokBuf   [8]byte
}

// token returns the next token to write: one byte, the time now, or an
// eventfd increment.
func (w *writer) token() []byte {
	switch {
	case w.latency:
		return stamp(&w.tokBuf, nanotime())
	case w.eventfd:
		return eventfdToken[:]
	}
	return token[:]
}

// run writes tokens until the stop flag is set or the stop word arrives.
func (w *writer) run() error {
	if w.inFlight == 0 {
		return w.unbounded()
	}
	var buf [4096]byte
	have := uint64(w.inFlight)
	for {
		for ; have > 0; have-- {
			if w.stop.Load() {
				return nil
			}
			j := w.route.pick()
			tok := w.token()
			if n, e := rawWrite(w.wfds[j], tok); e != 0 || n != len(tok) {
				return fmt.Errorf("writer: write token to pipe %d (fd %d): %w", j, w.wfds[j], writeErr(n, len(tok), e))
			}
			w.writes++
			w.sent++
		}
		if w.stop.Load() {
			return nil
		}
		read := pollingRead
		if w.alone {
			read = sleepingRead
		}
		n, e := read(w.credits, buf[:], &w.waits, &w.reads)
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
			c := binary.LittleEndian.Uint64(buf[i:])
			if c == stopCredit {
				return nil
			}
			have += c
		}
	}
}

// unbounded writes tokens without waiting for credits, counting those that
// find the pipe full, and looks for the stop word on the credit pipe every
// checkEvery writes (the stop flag ends it sooner; the stop word also ends
// a writer process whose reader is gone).
func (w *writer) unbounded() error {
	var buf [8]byte
	for {
		for range checkEvery {
			if w.stop.Load() {
				return nil
			}
			j := w.route.pick()
			tok := w.token()
			n, e := rawWrite(w.wfds[j], tok)
			switch {
			case e == 0 && n == len(tok):
				w.sent++
			case e == unix.EAGAIN:
				w.full++
			default:
				return fmt.Errorf("writer: write token to pipe %d (fd %d): %w", j, w.wfds[j], writeErr(n, len(tok), e))
			}
			w.writes++
		}
		w.reads++
		n, e := rawRead(w.credits, buf[:])
		switch {
		case e == unix.EAGAIN:
		case e != 0:
			return fmt.Errorf("writer: read stop word: %w", e)
		case n == 0:
			return fmt.Errorf("writer: credit pipe closed before the stop word")
		case n == 8 && binary.LittleEndian.Uint64(buf[:]) == stopCredit:
			return nil
		default:
			return fmt.Errorf("writer: unexpected %d-byte message on the credit pipe in unbounded mode", n)
		}
	}
}

// sendCredit writes one credit word; the credit pipe is large enough that it
// never blocks (see newCreditPipe).
func sendCredit(fd int32, buf *[8]byte, c uint64) error {
	binary.LittleEndian.PutUint64(buf[:], c)
	n, e := rawWrite(fd, buf[:])
	if e != 0 {
		return fmt.Errorf("write %d credits: %w", c, e)
	}
	if n != 8 {
		return fmt.Errorf("write %d credits: short write of %d bytes", c, n)
	}
	return nil
}

// creditPipeSize holds more credit words than tokens can be in flight.
const creditPipeSize = 1 << 16

// newCreditPipe makes the reader-to-writer credit pipe. Its write end is
// non-blocking for the reader. Its read end blocks only for a writer
// process that waits for credits (blocking): a writer thread sleeps in
// ppoll and reads without blocking, an unbounded writer only looks for the
// stop word (syscalls.go).
//
// At most one credit word per token in flight, and the stop word, wait in
// it; a user over pipe-user-pages-soft cannot grow a pipe past two pages,
// which is still enough for up to 1022 tokens in flight.
func newCreditPipe(blocking bool, inFlight int) (r, w int32, err error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return -1, -1, fmt.Errorf("make credit pipe: %w", err)
	}
	closeBoth := func() { unix.Close(p[0]); unix.Close(p[1]) }
	if _, err := unix.FcntlInt(uintptr(p[1]), unix.F_SETPIPE_SZ, creditPipeSize); err != nil {
		size, gerr := unix.FcntlInt(uintptr(p[1]), unix.F_GETPIPE_SZ, 0)
		if need := 8 * (inFlight + 2); gerr != nil || size < need {
			closeBoth()
			return -1, -1, fmt.Errorf("the credit pipe holds %d bytes, fewer than the %d that %d tokens in flight may need, and cannot grow to %d (%w): this user is over /proc/sys/fs/pipe-user-pages-soft; use a smaller -l or close other pipes",
				size, need, inFlight, creditPipeSize, err)
		}
	}
	if err := unix.SetNonblock(p[1], true); err != nil {
		closeBoth()
		return -1, -1, fmt.Errorf("credit pipe: %w", err)
	}
	if err := unix.SetNonblock(p[0], !blocking); err != nil {
		closeBoth()
		return -1, -1, fmt.Errorf("credit pipe: %w", err)
	}
	return int32(p[0]), int32(p[1]), nil
}
