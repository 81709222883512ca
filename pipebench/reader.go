package pipebench

import (
	"fmt"
	"time"
	"unsafe"

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
	// wts is the timeout of the reader's own ppoll or pselect6, set
	// afresh before each: the kernel writes what is left of it back.
	wts unix.Timespec
	// syscalls is the backend's WaitSyscalls at the last publication, and
	// held what the calls since then counted, published every
	// publishEvery calls or when the reporter asks (counters.want).
	syscalls uint64
	held     batch
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
// hot, so that hot's body makes no locked instruction (an atomic Bool's
// Store is an XCHG on amd64): TestHotPathLocksNothing looks for them.
func (r *reader) loop() error {
	r.ctr.served.Store(true)
	defer func() {
		r.publish()
		r.ctr.served.Store(false)
		r.ctr.answer()
	}()
	return r.hot()
}

// hot is the reader's loop: a readiness call, the reads and writes it
// leads to, the counts, until stop is set or something fails.
//
// Everything a readiness call leads to is done in hot's own body, not in
// a function it calls: returns that unwind frames made before a system
// call are slow (on the AMD EPYC VM, taking four such frames out of an
// event saved 33-83 ns of user time a token; docs/speed.md), and a call to a
// function that reads and forwards would return through its frame after
// every read and write. So the pipes are read, and a single token
// forwarded, right here; the rest of what a call leads to (several
// tokens, churn, credits) is done by functions called after those system
// calls, whose returns cost nothing extra; but the credit word to a
// single writer is written here too (its write is the last system call of
// an event, and wakes the writer). The wait itself is made here when the
// backend's Wait is one system call on a set it hands over (ownWait:
// epoll_pwait, ppoll or pselect6), as the C yardstick's reader makes it:
// a call into the backend around the wait cost about half a point of
// evts/sec. The epoll path then calls no function with a stack check: a
// goroutine the runtime asks to stop (a stop-the-world) stops at share's
// prologue, within publishEvery calls or after a wait that timed out, or
// where the runtime's signal finds it in Go code; a wait that signal
// interrupts is made again by Wait, whose prologue is a stopping place
// too.
func (r *reader) hot() error {
	r.syscalls = r.be.WaitSyscalls()
	b := &r.held
	own := r.ownWait()
	msec := uintptr(waitcall.Millis(r.timeout))
	ts, tsp := unix.NsecToTimespec(int64(r.timeout)), &r.wts
	if r.timeout < 0 {
		tsp = nil
	}
	for !r.stop.Load() {
		if r.delay != nil {
			if err := waitcall.SleepFully(r.delay, &r.rem); err != nil {
				return fmt.Errorf("delay before readiness call: %w", err)
			}
		}
		var n int
		var err error
		idle := false
		if own.kind != waitThrough {
			// The backend's Wait, here (waitsets.go): its one system
			// call, then the ready tags from the set. ppoll and pselect6
			// write what is left of the timeout back into it.
			var r0 uintptr
			switch own.kind {
			case waitEpoll:
				r0 = waitcall.Raw6(unix.SYS_EPOLL_PWAIT, uintptr(own.epfd), uintptr(unsafe.Pointer(unsafe.SliceData(own.events))), uintptr(len(own.events)), msec, 0, 0)
			case waitPoll:
				r.wts = ts
				fds := own.poll.Fds
				r0 = waitcall.Raw6(unix.SYS_PPOLL, uintptr(unsafe.Pointer(unsafe.SliceData(fds))), uintptr(len(fds)), uintptr(unsafe.Pointer(tsp)), 0, 0, 0)
			case waitSelect:
				r.wts = ts
				r0 = waitcall.Raw6(unix.SYS_PSELECT6, uintptr(own.sel.Nfds), uintptr(unsafe.Pointer(own.sel.Arm())), 0, 0, uintptr(unsafe.Pointer(tsp)), 0)
			}
			m, e := waitcall.Split(r0)
			b.direct++
			switch e {
			case 0:
				switch own.kind {
				case waitEpoll:
					n = EpollTags(r.ready, own.events[:m])
				case waitPoll:
					n = own.poll.Ready(r.ready, m)
				case waitSelect:
					n = own.sel.Ready(r.ready, m)
				}
				idle = m == 0
			case unix.EINTR:
				// Wait knows what an interrupted call needs, and its
				// prologue is where the goroutine stops if the runtime's
				// signal asked it to.
				n, err = r.be.Wait(r.ready, r.timeout)
			default:
				err = fmt.Errorf("%s: %w", own.kind, e)
			}
		} else {
			n, err = r.be.Wait(r.ready, r.timeout)
		}
		if err != nil {
			return fmt.Errorf("readiness call: %w", err)
		}
		b.calls++
		r.perCall[n]++
		if n == 0 {
			b.empty++
		}
		// Read the n ready pipes, forward or credit their tokens and
		// churn, counting into r.held as it goes: a call that fails
		// half-way has its tokens counted, as the call is in perCall.
		tokens0 := b.tokens
		for _, tag := range r.ready[:n] {
			fd := r.rfds[tag]
			// An edge-triggered backend's pipe is read until a short read;
			// its tokens are forwarded after that, so that a token
			// forwarded to the pipe being read (always, with one pipe)
			// cannot keep the loop reading forever: its write raises the
			// next edge instead.
			var k int
			var tok []byte
			for first := true; ; first = false {
				m, e := tokens.Read(fd, r.buf[:]).Split()
				b.reads++
				if e == unix.EAGAIN {
					// Only a first read that finds nothing is a false
					// report; an edge-triggered drain ends on EAGAIN by
					// design.
					if first {
						b.spurious++
					}
					break
				}
				if e != 0 || m == 0 {
					return r.readErr(tag, fd, e)
				}
				b.events++
				var got int
				got, tok = r.Decode(r.buf[:m])
				b.tokens += uint64(got)
				k += got
				if !r.edge || m < readSize || r.stop.Load() {
					break
				}
			}
			if r.owner != nil {
				r.owed[r.owner[tag]] += uint64(k)
			}
			if !r.self || k == 0 {
				continue
			}
			if k == 1 && r.send == nil {
				// Forward's one-token case, in place (Forward returns
				// through its frame after its write).
				j := r.forwarder.route.After(int(tag))
				if m, e := tokens.Write(r.forwarder.wfds[j], tok).Split(); e != 0 || m != len(tok) {
					return r.writeErr(int(tag), j, m, len(tok), e)
				}
				b.writes++
				continue
			}
			writes, _, err := r.forwardMany(int(tag), k, tok)
			b.writes += writes
			if err != nil {
				return err
			}
		}
		if n > 0 {
			switch got := b.tokens - tokens0; {
			case r.owner != nil || r.churn > 0:
				if err := r.afterReads(got); err != nil {
					return err
				}
			case r.credit >= 0 && got > 0:
				// afterReads' credit word to the one writer, in place:
				// SendCredit would return through two frames after its
				// write, which wakes the writer (on a CPU they share,
				// often a switch to it before the write returns).
				if m, e := tokens.Write(r.credit, tokens.CreditWord(&r.cbuf, got)).Split(); e != 0 || m != 8 {
					return tokens.CreditErr(got, m, e)
				}
				b.writes++
			}
		}
		// A wait of the reader's own that timed out (idle) is followed
		// by share, whose prologue is where the goroutine stops if the
		// runtime asked it to: with asynchronous preemption off
		// (GODEBUG=asyncpreemptoff=1) no signal ends those waits, and a
		// stop-the-world that had stopped the writer thread would
		// otherwise wait for publishEvery of them. (With preemption off,
		// one that stopped the reader first would leave a writer thread
		// asleep for credits for good: its wait relies on the signal,
		// tokens/syscalls.go; Validate refuses that writer then.)
		if b.calls >= publishEvery || idle || r.ctr.want.Load() {
			r.share()
		}
	}
	return nil
}

// ownWait is the readiness call the reader makes in its own loop: the
// set of a backend whose Wait is one system call on it and nothing else
// (EpollSet, PollWait, SelectWait), or kind waitThrough, every call
// through Wait.
type ownWait struct {
	kind   waitKind
	epfd   int
	events []unix.EpollEvent // cut to what Wait would pass
	poll   *PollSet
	sel    *SelectSet
}

// waitKind is which call the reader makes in its own loop, named after
// it.
type waitKind int

const (
	waitThrough waitKind = iota
	waitEpoll
	waitPoll
	waitSelect
)

func (k waitKind) String() string {
	return [...]string{"Wait", "epoll_pwait", "ppoll", "pselect6"}[k]
}

// ownWait returns the readiness call the reader can make itself, if its
// backend offers its set, and there is room for what it reports.
func (r *reader) ownWait() ownWait {
	if len(r.ready) == 0 {
		return ownWait{}
	}
	if es, ok := r.be.(EpollSet); ok {
		if epfd, events, ok := es.EpollSet(); ok && len(events) > 0 {
			return ownWait{kind: waitEpoll, epfd: epfd, events: events[:min(len(r.ready), len(events))]}
		}
	}
	if ps, ok := r.be.(PollWait); ok {
		if set, ok := ps.PollSet(); ok {
			return ownWait{kind: waitPoll, poll: set}
		}
	}
	if ss, ok := r.be.(SelectWait); ok {
		if set, ok := ss.SelectSet(); ok {
			return ownWait{kind: waitSelect, sel: set}
		}
	}
	return ownWait{}
}

// share publishes what the reader holds and answers the reporter if it
// asked. It stays a call (noinline), made once every publishEvery calls:
// the publication's locked adds and the answer's store and channel send
// are then not in hot's body, which holds no locked instruction, channel
// operation or clock read (TestHotPathLocksNothing looks).
//
//go:noinline
func (r *reader) share() {
	r.publish()
	r.ctr.answer()
}

// batch counts what the readiness calls since the last publication led
// to (reader.held).
type batch struct {
	events, tokens, reads, writes, spurious, changes uint64
	calls, empty                                     uint64 // calls, and those that returned nothing
	direct                                           uint64 // readiness system calls made by the reader itself (ownWait)
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
func (r *reader) payWriters(b *batch) error {
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
	if b.calls == 0 && b.direct == 0 {
		return
	}
	s := r.be.WaitSyscalls()
	r.ctr.begin()
	r.ctr.calls.Add(b.calls)
	r.ctr.waitSyscalls.Add(s - r.syscalls + b.direct)
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
	*b = batch{}
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
