package pipebench

import (
	"encoding/binary"
	"fmt"

	"golang.org/x/sys/unix"
)

// stopCredit, sent on the credit pipe, tells the writer to stop.
const stopCredit = ^uint64(0)

// checkEvery is how many token writes an unbounded writer makes between two
// looks at its credit pipe for the stop word.
const checkEvery = 1024

// writer forwards tokens into the pipes' write ends. The same loop runs on a
// thread of the reading process or in the writer process.
type writer struct {
	wfds     []int32
	route    router
	inFlight int
	credits  int32 // read end of the credit pipe
	alone    bool  // in the writer process: sleep in read(2) (syscalls.go)
	sent     uint64
	full     uint64 // unbounded mode: writes that found the pipe full
	latency  bool   // tokens carry their write time (stamp.go)
	eventfd  bool   // a token adds 1 to an eventfd counter
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

// run writes tokens until the stop word arrives.
func (w *writer) run() error {
	if w.inFlight == 0 {
		return w.unbounded()
	}
	var buf [4096]byte
	have := uint64(w.inFlight)
	for {
		for ; have > 0; have-- {
			j := w.route.pick()
			if _, e := rawWrite(w.wfds[j], w.token()); e != 0 {
				return fmt.Errorf("writer: write token to pipe %d (fd %d): %w", j, w.wfds[j], e)
			}
			w.sent++
		}
		read := pollingRead
		if w.alone {
			read = sleepingRead
		}
		n, e := read(w.credits, buf[:])
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

func (w *writer) unbounded() error {
	var buf [8]byte
	for {
		for range checkEvery {
			j := w.route.pick()
			_, e := rawWrite(w.wfds[j], w.token())
			switch e {
			case 0:
				w.sent++
			case unix.EAGAIN:
				w.full++
			default:
				return fmt.Errorf("writer: write token to pipe %d (fd %d): %w", j, w.wfds[j], e)
			}
		}
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
