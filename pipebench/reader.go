package pipebench

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/internal/tokens"
	"github.com/pipebench/pipebench/internal/waitcall"
	"github.com/pipebench/pipebench/stats"
)

// readSize is the most one read takes, as in epoll_pipe_bench: one event can
// carry several tokens.
const readSize = 1024

// reader is the hot loop: wait, read every ready pipe, forward or credit the
// tokens, count. It allocates nothing and reads no clock. It is built on
// the Surface a Loop is handed in its place (the self mode, the credit
// pipe, the counters, the stop flag are the surface's), and forwards
// through the same forwarder as a Loop's workers.
type reader struct {
	Surface
	forwarder
	be    Mechanism // nil when a Loop reads instead
	rfds  []int32
	ready []int32
	edge  bool // read until a short read
	// With several writers (creditWriters), owner is the writer of each of
	// the reader's pipes, owed what one call's reads owe each writer,
	// received what the reader has received from each over the run, and
	// credits each writer's credit pipe (nil for an unbounded writer).
	// owner is nil with one writer: credit is then the credit pipe.
	owner    []uint16
	owed     []uint64
	received []uint64
	credits  []int32
	timeout  time.Duration
	// perCall counts the readiness calls by the pipes each reported:
	// perCall[k] is how many reported k (0: empty calls). Wait reports at
	// most len(ready), so k is in range. One plain increment a call, where
	// a histogram's Record cost about 3% of evts/sec at one event per call
	// (docs/speed.md); readyHist makes the histogram once the loop is done.
	perCall []uint64
	// delay, if set, is slept before every readiness call; rem holds what
	// is left of it after a signal.
	delay *unix.Timespec
	rem   unix.Timespec
	// syscalls is the backend's WaitSyscalls at the last publication, and
	// held what the calls since then counted, published every
	// publishEvery calls or when the reporter asks (counters.want).
	syscalls uint64
	held     pending
	// churn descriptors are removed and re-added after every call.
	churn      int
	churnRoute tokens.Router
	buf        [readSize]byte
	cbuf       [8]byte
}

// newHists makes the reader's histograms for pipes pipes: the count of
// calls by ready pipes, 0..pipes (Wait fills at most len(ready) = pipes
// entries), and in latency mode write-to-read times, 0..latencyRange.
func (r *reader) newHists(pipes int) {
	r.perCall = make([]uint64, pipes+1)
	if r.latency() {
		r.lat = stats.NewHist(latencyRange)
	}
}

// readyHist is the histogram of ready pipes per readiness call, over
// 0..pipes: one value per call the reader made, 0 for an empty one. It is
// read once the loop has returned.
func (r *reader) readyHist() stats.Hist {
	h := stats.NewHist(uint64(max(len(r.perCall)-1, 0)))
	for k, n := range r.perCall {
		h.RecordN(uint64(k), n)
	}
	return h
}

// publishEvery is how many readiness calls the reader lets go by between
// two publications when the reporter does not ask for one sooner: a
// publication is eight locked atomic adds, which cost a few percent of a
// call that returns one event (docs/speed.md); held back, the counts of
// at most this many calls are missing from a snapshot the reporter takes
// without waiting (counters.fresh).
const publishEvery = 256

// loop runs the reader until stop is set or something fails, and
// publishes what it holds as it returns. It marks the reader served around
// hot, so that the loop's functions make no locked instruction (an atomic
// Bool's Store is an XCHG on amd64): TestHotPathLocksNothing looks for
// them.
func (r *reader) loop() error {
	r.ctr.served.Store(true)
	defer func() {
		r.publish()
		r.ctr.served.Store(false)
		r.ctr.answer()
	}()
	return r.hot()
}

// hot is the reader's loop, until stop is set or something fails: the
// readiness call, which is the Mechanism's Wait and nothing else; the
// count of the call; serve, for the pipes it reported; and, every
// publishEvery calls or when the reporter asks, flush. Wait retries a
// call a signal ends (EINTR), and its prologue is where the goroutine
// stops when the runtime asks it to (a stop-the-world; with asynchronous
// preemption off, once the wait in progress has returned or timed out).
func (r *reader) hot() error {
	r.syscalls = r.be.WaitSyscalls()
	b := &r.held
	for !r.stop.Load() {
		if r.delay != nil {
			if err := waitcall.SleepFully(r.delay, &r.rem); err != nil {
				return fmt.Errorf("delay before readiness call: %w", err)
			}
		}
		n, err := r.be.Wait(r.ready, r.timeout)
		if err != nil {
			return fmt.Errorf("readiness call: %w", err)
		}
		b.calls++
		r.perCall[n]++
		if n == 0 {
			b.empty++
		} else if err := r.serve(r.ready[:n]); err != nil {
			return err
		}
		if b.calls >= publishEvery || r.ctr.want.Load() {
			r.flush()
		}
	}
	return nil
}

// serve is what one readiness call that reported the ready pipes leads
// to: each pipe read (readPipe) and, in self mode, its tokens forwarded;
// then the tokens returned as credits, and the churn. It counts into
// r.held as it goes, so that a call that fails half-way has its tokens
// counted, as the call is in perCall.
func (r *reader) serve(ready []int32) error {
	b := &r.held
	tokens0 := b.tokens
	for _, tag := range ready {
		k, tok, err := r.readPipe(tag)
		if err != nil {
			return err
		}
		if r.owner != nil {
			r.owed[r.owner[tag]] += uint64(k)
		}
		if !r.self || k == 0 {
			continue
		}
		writes, _, err := r.Forward(int(tag), k, tok)
		b.writes += writes
		if err != nil {
			return err
		}
	}
	switch got := b.tokens - tokens0; {
	case r.owner != nil || r.churn > 0:
		return r.afterReads(got)
	case r.credit >= 0 && got > 0:
		// The credit word to the one writer, written here: its write
		// wakes the writer (on a CPU they share, often a switch to it
		// before the write returns), and every frame a return unwinds
		// after such a switch costs (commit 2dc464c); through afterReads
		// and SendCredit, two more would.
		if m, e := tokens.Write(r.credit, tokens.CreditWord(&r.cbuf, got)).Split(); e != 0 || m != 8 {
			return tokens.CreditErr(got, m, e)
		}
		b.writes++
	}
	return nil
}

// readPipe reads pipe tag, once, or, on an edge-triggered backend, until
// a short read, and returns the tokens the reads brought and the token to
// forward them as, counting the reads, events and tokens into r.held. An
// edge-triggered pipe is read dry before its tokens are forwarded, so
// that a token forwarded to the pipe being read (always, with one pipe)
// cannot keep the loop reading forever: its write raises the next edge
// instead.
func (r *reader) readPipe(tag int32) (k int, tok []byte, err error) {
	b := &r.held
	fd := r.rfds[tag]
	for first := true; ; first = false {
		m, e := tokens.Read(fd, r.buf[:]).Split()
		b.reads++
		if e == unix.EAGAIN {
			// Only a first read that finds nothing is a false report; an
			// edge-triggered drain ends on EAGAIN by design.
			if first {
				b.spurious++
			}
			return k, tok, nil
		}
		if e != 0 || m == 0 {
			return k, tok, r.readErr(tag, fd, e)
		}
		b.events++
		got, t := r.Decode(r.buf[:m])
		b.tokens += uint64(got)
		k, tok = k+got, t
		if !r.edge || m < readSize || r.stop.Load() {
			return k, tok, nil
		}
	}
}

// flush publishes what the reader holds and answers the reporter if it
// asked. It stays a call (noinline), made once every publishEvery calls:
// the publication's locked adds and the answer's store and channel send
// are then not in the loop's functions (hot, serve, readPipe), which hold
// no locked instruction, channel operation or clock read
// (TestHotPathLocksNothing looks).
//
//go:noinline
func (r *reader) flush() {
	r.publish()
	r.ctr.answer()
}

// pending counts what the readiness calls since the last publication led
// to (reader.held).
type pending struct {
	events, tokens, reads, writes, spurious, changes uint64
	calls, empty                                     uint64 // calls, and those that returned nothing
}

// readErr is the error of a read of pipe tag (fd) that failed with e, or
// found the end of the pipe (e == 0).
func (r *reader) readErr(tag, fd int32, e unix.Errno) error {
	if e == 0 {
		return &EOFError{Pipe: int(tag), Noun: r.Surface.noun}
	}
	return fmt.Errorf("read %s %d (fd %d): %w", r.Surface.noun, tag, fd, e)
}

// afterReads is what a readiness call that reported pipes leads to once
// they are read and their tokens forwarded: the churn, and the return of
// the got tokens it received as credits, counted into r.held.
func (r *reader) afterReads(got uint64) error {
	b := &r.held
	if r.churn > 0 {
		if err := r.churnOnce(); err != nil {
			return err
		}
		b.changes += uint64(r.churn)
	}
	if r.credit >= 0 && got > 0 {
		if err := tokens.SendCredit(r.credit, &r.cbuf, got); err != nil {
			return err
		}
		b.writes++
	}
	if r.owner != nil {
		return r.payWriters(b)
	}
	return nil
}

// creditWriters sets the reader of pipes lo to hi-1 up for several
// writers: whose each pipe is, and each writer's credit pipe when tokens
// are bounded.
func (r *reader) creditWriters(c *Config, lo, hi int, pipes []creditPipe) {
	r.owner = make([]uint16, hi-lo)
	for t := range r.owner {
		r.owner[t] = uint16(c.writerOf(lo + t))
	}
	r.owed, r.received = make([]uint64, c.writers()), make([]uint64, c.writers())
	if c.InFlight > 0 {
		r.credits = make([]int32, len(pipes))
		for w, p := range pipes {
			r.credits[w] = p.w
		}
	}
}

// payWriters returns what one call's reads owe each writer, one credit
// write per writer owed, and counts what each writer's pipes gave.
func (r *reader) payWriters(b *pending) error {
	for w, n := range r.owed {
		if n == 0 {
			continue
		}
		r.owed[w] = 0
		r.received[w] += n
		if r.credits == nil {
			continue
		}
		if err := tokens.SendCredit(r.credits[w], &r.cbuf, n); err != nil {
			return fmt.Errorf("return %d credits to writer %d: %w", n, w, err)
		}
		b.writes++
	}
	return nil
}

// publish adds the counts held since the last publication to the counters
// the reporter reads, with the backend's system calls since then.
func (r *reader) publish() {
	b := &r.held
	if b.calls == 0 {
		return
	}
	s := r.be.WaitSyscalls()
	r.ctr.begin()
	r.ctr.calls.Add(b.calls)
	r.ctr.waitSyscalls.Add(s - r.syscalls)
	r.ctr.events.Add(b.events)
	r.ctr.tokens.Add(b.tokens)
	r.ctr.reads.Add(b.reads)
	r.ctr.writes.Add(b.writes)
	if b.spurious > 0 {
		r.ctr.spurious.Add(b.spurious)
	}
	if b.changes > 0 {
		r.ctr.changes.Add(b.changes)
	}
	if b.empty > 0 {
		r.ctr.empty.Add(b.empty)
	}
	r.ctr.end()
	r.syscalls = s
	*b = pending{}
}

// churnOnce removes and re-adds churn descriptors, chosen at random.
func (r *reader) churnOnce() error {
	for range r.churn {
		i := r.churnRoute.Pick()
		fd := int(r.rfds[i])
		if err := r.be.Remove(fd, int32(i)); err != nil {
			return fmt.Errorf("churn: remove pipe %d (fd %d): %w", i, fd, err)
		}
		if err := r.be.Add(fd, int32(i)); err != nil {
			return fmt.Errorf("churn: re-add pipe %d (fd %d): %w", i, fd, err)
		}
	}
	return nil
}

// EOFError reports a channel whose write end was closed during the run:
// the writer went away.
type EOFError struct {
	Pipe int
	Noun string // pipe, socket
}

func (e *EOFError) Error() string {
	noun := e.Noun
	if noun == "" {
		noun = "pipe"
	}
	return fmt.Sprintf("%s %d reached end of file: its writer closed it", noun, e.Pipe)
}
