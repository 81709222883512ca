package pipebench

import (
	"encoding/binary"
	"sync/atomic"
	"time"

	"github.com/pipebench/pipebench/internal/tokens"
	"github.com/pipebench/pipebench/stats"
)

// Loop is a backend that replaces the reader's loop: the bypass (Bypass),
// which reads each token from the pipe it was written to, on the reader
// thread itself; the Go runtime's netpoller (gonet), where one goroutine
// per pipe blocks in a read and the runtime's own epoll wakes it; and
// io_uring's rw variants, whose ring does the reads and the writes. None
// makes a readiness call the harness could ask for, so none has a Wait:
// the harness calls Run, on the reader thread, instead of its own loop.
//
// Run serves every pipe registered with Add until the surface says the run
// has ended (Surface.Done, Surface.Stopped) or something fails, then stops
// whatever it started and returns; once it has returned, nothing it
// started reads a pipe or counts. It has only the Surface, the same for
// every loop and the one the harness's reader loop is built on: each read
// is handed to a Worker, one per goroutine (one for a loop that reads on
// the reader thread), which counts it and moves its tokens on as the
// writer mode says (Got), or the loop moves and counts them itself
// through the Worker's parts (Decode, Forward, Credit, Count). Run
// returns the first failure, or nil when the run ended normally; a
// failure ends the run.
//
// Descriptors the loop gives the runtime must be its own (dups of the
// read ends, declared in Factory.FDsPerPipe), closed by the backend's
// Remove and Close: the harness closes the read ends themselves, and reads
// them after Run to drain the tokens left in flight.
type Loop interface {
	Interest
	Run(s *Surface) error
}

// Surface is what a reader has of the run: how many pipes and tokens, the
// write ends of self mode, the credit pipe, the route, what a token is,
// the counters, the stop flag. The harness's reader loop is built on one
// (reader embeds it) and a Loop is handed one; their access is the same.
type Surface struct {
	// Done is closed when the run ends (its duration is over, it was
	// stopped, or it failed).
	Done <-chan struct{}
	// WaitTimeout bounds each wait of a loop that sleeps in a system
	// call of its own (uring-rw's io_uring_enter), so that it notices the
	// run's end (Config.WaitTimeout).
	WaitTimeout time.Duration

	pipes     int
	inFlight  int
	self      bool
	wfds      []int32 // self mode: where forwarded tokens go
	credit    int32   // write end of the credit pipe, or -1 (self mode, unbounded writer)
	route     Route
	routeSeed uint64
	format    tokens.Format // what a token is
	noun      string        // names a channel in errors
	ctr       *counters
	// stop is set when the run ends, with Done: a loop that reads on the
	// reader thread (the bypass) loads it rather than look at a channel.
	stop *atomic.Bool
}

// runLoop hands the reader's surface to a Loop in place of the reader's loop,
// then merges its workers' latency histograms into the reader's, where the
// result takes them from.
func (r *run) runLoop(l Loop, rd *reader) error {
	s := &rd.Surface
	s.Done, s.WaitTimeout = r.ending.Done(), r.cfg.WaitTimeout
	err := l.Run(s)
	if ws := rd.ctr.workers.Load(); ws != nil && s.latency() {
		for _, w := range *ws {
			rd.lat.Merge(&w.lat)
		}
	}
	return err
}

// Stopped says whether the run has ended: a loop that reads on the
// reader thread loads it between batches rather than look at Done, a
// channel.
func (s *Surface) Stopped() bool { return s.stop.Load() }

// Pipes is how many pipes the reader serves, tags 0 to Pipes-1.
func (s *Surface) Pipes() int { return s.pipes }

// InFlight is how many tokens travel at once (Config.InFlight; 0 for an
// unbounded writer).
func (s *Surface) InFlight() int { return s.inFlight }

// Self says whether the reader moves the tokens on itself (self mode),
// rather than give a writer its credits back.
func (s *Surface) Self() bool { return s.self }

// TokenSize is how many bytes one token is: 1, or 8 for an eventfd's
// count and for latency mode's stamps.
func (s *Surface) TokenSize() int { return s.format.Size() }

// WriterRoute is the route a writer (thread or process) writes the tokens
// on: token k goes to the k-th pipe it picks.
func (s *Surface) WriterRoute() tokens.Router { return tokens.NewRouter(s.route, s.routeSeed, s.pipes) }

// PrimeRoute is the route the harness primed the self mode's tokens on:
// token k starts in the k-th pipe it picks.
func (s *Surface) PrimeRoute() tokens.Router {
	return tokens.NewRouter(s.route, s.routeSeed^primeSeed, s.pipes)
}

// Noun names a channel in messages: pipe, socket, eventfd.
func (s *Surface) Noun() string { return s.noun }

// latency says whether tokens are stamps (latency mode).
func (s *Surface) latency() bool { return s.format == tokens.Stamp }

// checkDriver refuses the settings that act on a readiness call when the
// backend makes none (a Loop), on the reader thread when it reads on
// goroutines instead (Goroutines), and nesting where the backend has none
// (Nests).
func (c *Config) checkDriver(n Names) error {
	f := c.Backend.Features
	with := func(field, why string) error {
		return n.Errorf("%s with %s: %s", Field(field), Set("Backend", c.Backend.Name), why)
	}
	loop := c.Backend.IsLoop()
	switch {
	case loop && c.Churn > 0:
		return with("Churn", "it makes no readiness call to churn interest after")
	case loop && c.Delay > 0:
		return with("Delay", "it makes no readiness call to delay")
	case loop && c.MaxEvents > 0:
		return with("MaxEvents", "it makes no readiness call to cap")
	case c.Nest > 0 && !f.Has(Nests):
		return with("Nest", "only the epoll backends nest (epoll, epoll-et, epoll-oneshot)")
	case f.Has(Goroutines) && (len(c.CPUs) > 0 || c.Spread):
		return with("CPUs", "its readers are goroutines on the Go runtime's threads, not one reader thread to pin")
	}
	return nil
}

// Workers returns n workers, one for each goroutine that reads, and makes
// the run's counters sum theirs from now on. Call it once, before starting
// the goroutines. In self mode each worker forwards tokens on a route of its
// own (the same kind, seeded apart), since a route is not shared between
// goroutines.
func (s *Surface) Workers(n int) []*Worker {
	ws := make([]*Worker, n)
	var lats []stats.Hist
	switch {
	case s.latency() && n == 1:
		// One worker (a loop on the reader thread): a full histogram, as
		// the reader's, which never allocates as it records.
		lats = []stats.Hist{stats.NewHist(latencyRange)}
	case s.latency():
		// Sparse: one goroutine per pipe, thousands of them.
		lats = stats.NewSparseHists(n, latencyRange, workerReserve)
	}
	for k := range ws {
		ws[k] = &Worker{s: s, forwarder: forwarder{format: s.format, wfds: s.wfds, noun: s.noun,
			route: tokens.NewRouter(s.route, s.routeSeed+uint64(k)*seedApart, s.pipes)}}
		if s.latency() {
			ws[k].lat = lats[k] // handed over: lats is not used again
		}
	}
	s.ctr.workers.Store(&ws)
	return ws
}

// Worker counts one goroutine's reads and forwards its tokens. Its counters
// have a single writer (its goroutine), are read by the reporter, and are
// padded so that two workers never share a cache line: no lock, channel or
// shared atomic per event.
//
// Got does all of one read's work. A loop that batches its counts (the
// bypass, which counts every bypassPublish tokens) uses the parts Got is
// made of instead: Decode, Forward, Credit, and Count.
type Worker struct {
	_                                       [64]byte
	events, tokens, reads, writes, spurious atomic.Uint64
	// syscalls and completions are a RingQueued loop's io_uring_enter
	// calls and reaped completions (Entered).
	syscalls, completions atomic.Uint64
	s                     *Surface
	forwarder
	cbuf [8]byte
	owed uint64 // credits a loop that queues its writes has yet to queue (Got, PutCredit)
	_    [64]byte
}

// Tally counts what a reader did since it last counted: the harness's
// reader counts one readiness call's, a Worker one read's (Got) or a
// loop's batch of reads (Count).
type Tally struct {
	Events, Tokens, Reads, Writes, Spurious uint64
}

// Count adds b to the worker's counts.
func (w *Worker) Count(b *Tally) {
	w.events.Add(b.Events)
	w.tokens.Add(b.Tokens)
	w.reads.Add(b.Reads)
	w.writes.Add(b.Writes)
	if b.Spurious > 0 {
		w.spurious.Add(b.Spurious)
	}
}

// Got counts one read of pipe that returned b (not empty): an event,
// carrying len(b) tokens (an eventfd's counter, or len(b)/8 stamped tokens
// in latency mode, whose write-to-read times it records). Then it moves the
// tokens on. In self mode it forwards each token to the pipe its route
// picks (Forward). With a writer thread or process it returns their
// credits in one write: one credit write per read, since a goroutine per
// pipe has no readiness call to batch credits by; a worker that queues its
// writes (QueueWrites) owes them instead, until PutCredit, which the loop
// calls once per batch of completions, as the reader returns credits once
// per readiness call. With an unbounded writer it returns none.
//
// A failure to move the tokens on is returned, after the read, its tokens
// and the writes that did succeed are counted: they happened, and the
// run's token accounting needs them.
func (w *Worker) Got(pipe int, b []byte) error {
	n, tok := w.Decode(b)
	w.reads.Add(1)
	w.events.Add(1)
	w.tokens.Add(uint64(n))
	var writes uint64
	var err error
	switch {
	case w.s.self:
		writes, _, err = w.Forward(pipe, n, tok)
	case w.s.credit < 0:
	case w.send != nil:
		w.owed += uint64(n)
	default:
		if err = w.Credit(uint64(n)); err == nil {
			writes = 1
		}
	}
	if writes > 0 {
		w.writes.Add(writes)
	}
	return err
}

// Credit gives the writer n credits back, in one write of a credit word to
// the credit pipe; it writes nothing in self mode or for an unbounded
// writer, which take none. The caller counts the write.
func (w *Worker) Credit(n uint64) error {
	if w.s.credit < 0 {
		return nil
	}
	return tokens.SendCredit(w.s.credit, &w.cbuf, n)
}

// Sender is how a RingQueued loop (uring-rw) moves tokens on: Send
// queues one write of tok to fd, the write end of pipe, as an operation of
// its own. tok is reused after Send returns: the sender copies it.
type Sender interface {
	Send(pipe int, fd int32, tok []byte) error
}

// QueueWrites makes the worker move tokens on through s rather than with
// write(2): Forward then makes one Send per token, each counted by Wrote
// once the kernel has written it, and Got owes the credits of a writer
// thread or process until PutCredit.
func (w *Worker) QueueWrites(s Sender) { w.send = s }

// PutCredit puts in buf the credit word for the tokens Got has owed since
// the last call and returns the credit pipe's write end, for the loop to
// queue one write of buf to it; ok is false when there is nothing to
// credit (self mode, an unbounded writer, no tokens).
func (w *Worker) PutCredit(buf *[8]byte) (fd int32, ok bool) {
	if w.owed == 0 || w.s.credit < 0 {
		return -1, false
	}
	binary.LittleEndian.PutUint64(buf[:], w.owed)
	w.owed = 0
	return w.s.credit, true
}

// Wrote counts n writes a RingQueued loop's io_uring completed: tokens
// forwarded in self mode, credit words otherwise. A token is sent when its
// write completes, not when it is queued.
func (w *Worker) Wrote(n uint64) { w.writes.Add(n) }

// Entered counts a RingQueued loop's io_uring_enter system calls (every
// one, as Mechanism.WaitSyscalls does) and the completions it reaped.
func (w *Worker) Entered(syscalls, completions uint64) {
	if syscalls > 0 {
		w.syscalls.Add(syscalls)
	}
	if completions > 0 {
		w.completions.Add(completions)
	}
}

// Missed counts one read(2) that found its pipe empty (EAGAIN). afterWake
// says that it followed a wake-up reporting the pipe readable, which makes
// it a spurious report; a goroutine's first read, made before it parks, is
// not one.
func (w *Worker) Missed(afterWake bool) {
	w.reads.Add(1)
	if afterWake {
		w.spurious.Add(1)
	}
}

// addWorkers adds the counts of a Loop's workers to a snapshot. The sum
// is not taken under the seqlock (the workers do not publish through it):
// an interval may see an event without its tokens for a moment; the final
// snapshot, taken after Run has returned, is exact.
func (c *counters) addWorkers(n Counts) Counts {
	ws := c.workers.Load()
	if ws == nil {
		return n
	}
	for _, w := range *ws {
		n.Events += w.events.Load()
		n.Tokens += w.tokens.Load()
		n.Reads += w.reads.Load()
		n.Writes += w.writes.Load()
		n.Spurious += w.spurious.Load()
		n.WaitSyscalls += w.syscalls.Load()
		n.Completions += w.completions.Load()
	}
	return n
}
