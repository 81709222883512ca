package pipebench

import (
	"encoding/binary"
	"sync/atomic"
	"time"

	"github.com/pipebench/pipebench/internal/tokens"
	"github.com/pipebench/pipebench/stats"
)

// Driver is implemented by a Backend that has no readiness call to answer
// Wait with: the bypass (Bypass), which reads each token from the pipe it
// was written to, on the reader thread itself, and the Go runtime's netpoller
// (gonet), where one goroutine per pipe blocks in a read and the runtime's
// own epoll wakes it. For such a backend the harness calls Drive, on the
// reader thread, instead of running its own loop, and never calls Wait. Its
// factory declares NoWaitCall, so that samples per call reads n/a, and
// Goroutines when it reads on goroutines rather than on the reader thread.
//
// Drive serves every pipe registered with Add until d.Done is closed or
// something fails, then stops whatever it started and returns; once it has
// returned, nothing it started reads a pipe or counts. Each read(2) is
// handed to a Worker, one per goroutine (one for a driver that reads on the
// reader thread), which counts it and moves the tokens on as the writer
// mode says. Drive returns the first failure, or nil when the run ended
// normally; a failure ends the run.
//
// Descriptors the driver gives the runtime must be its own (dups of the
// read ends, declared in Factory.FDsPerPipe), closed by the backend's
// Remove and Close: the harness closes the read ends themselves, and reads
// them after Drive to drain the tokens left in flight.
type Driver interface {
	Drive(d *Drive) error
}

// Drive is what the harness hands a Driver for one run.
type Drive struct {
	// Done is closed when the run ends (its duration is over, it was
	// stopped, or it failed).
	Done <-chan struct{}
	// WaitTimeout bounds each wait of a driver that sleeps in a system
	// call of its own (uring-rw's io_uring_enter), so that it notices the
	// run's end (Config.WaitTimeout).
	WaitTimeout time.Duration

	pipes    int
	inFlight int
	self     bool
	wfds     []int32 // self mode: where forwarded tokens go
	credit   int32   // write end of the credit pipe, or -1 (self mode, unbounded writer)
	route    Route
	seed     uint64
	format   tokens.Format // what a token is
	noun     string        // names a channel in errors
	ctr      *counters
	// stop is set when the run ends, with Done: a driver that reads on the
	// reader thread (the bypass) loads it rather than look at a channel.
	stop *atomic.Bool
}

// drive runs a Driver in place of the reader's loop, then merges its
// workers' latency histograms into the reader's, where the result takes
// them from.
func (r *run) drive(drv Driver, rd *reader) error {
	d := &Drive{
		Done: r.halt.Done(), WaitTimeout: r.cfg.WaitTimeout, pipes: r.cfg.Pipes, inFlight: r.cfg.InFlight, self: rd.self, wfds: rd.wfds, credit: rd.credit,
		route: r.cfg.Route, seed: r.cfg.Seed, format: rd.format, noun: rd.noun, ctr: rd.ctr, stop: rd.stop,
	}
	err := drv.Drive(d)
	if ws := rd.ctr.workers.Load(); ws != nil && d.latency() {
		for _, w := range *ws {
			rd.lat.Merge(&w.lat)
		}
	}
	return err
}

// Stopped says whether the run has ended: a driver that reads on the
// reader thread loads it between batches rather than look at Done, a
// channel.
func (d *Drive) Stopped() bool { return d.stop.Load() }

// latency says whether tokens are stamps (latency mode).
func (d *Drive) latency() bool { return d.format == tokens.Stamp }

// checkDriver refuses the settings that act on a readiness call when the
// backend makes none (a Loop), on the reader thread when it reads on
// goroutines instead (Goroutines), and nesting where the backend has none
// (Nests).
func (c *Config) checkDriver() error {
	f := c.Backend.Features
	with := func(field, why string) error {
		return NewConfigError(Field(field), Text(" with "), Setting("Backend", c.Backend.Name), Text(": %s", why))
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
func (d *Drive) Workers(n int) []*Worker {
	ws := make([]*Worker, n)
	var lats []stats.Hist
	switch {
	case d.latency() && n == 1:
		// One worker (the bypass, on the reader thread): a full histogram,
		// as the reader's, which never allocates as it records.
		lats = []stats.Hist{stats.NewHist(latencyRange)}
	case d.latency():
		// Sparse: one goroutine per pipe, thousands of them.
		lats = stats.NewSparseHists(n, latencyRange, workerReserve)
	}
	for k := range ws {
		ws[k] = &Worker{d: d, forwarder: forwarder{format: d.format, wfds: d.wfds, noun: d.noun,
			route: tokens.NewRouter(d.route, d.seed+uint64(k)*0x9e3779b97f4a7c15, d.pipes)}}
		if d.latency() {
			ws[k].lat = lats[k] // handed over: lats is not used again
		}
	}
	d.ctr.workers.Store(&ws)
	return ws
}

// Worker counts one goroutine's reads and forwards its tokens. Its counters
// have a single writer (its goroutine), are read by the reporter, and are
// padded so that two workers never share a cache line: no lock, channel or
// shared atomic per event.
type Worker struct {
	_                                       [64]byte
	events, tokens, reads, writes, spurious atomic.Uint64
	// syscalls and completions are a RingQueued driver's io_uring_enter
	// calls and reaped completions (Entered).
	syscalls, completions atomic.Uint64
	d                     *Drive
	forwarder
	cbuf [8]byte
	owed uint64 // credits a RingQueued driver has yet to queue (Took, PutCredit)
	_    [64]byte
}

// Got counts one read(2) of pipe that returned b (not empty): an event,
// carrying len(b) tokens (an eventfd's counter, or len(b)/8 stamped tokens
// in latency mode, whose write-to-read times it records). Then it moves the
// tokens on. In self mode it writes each token to the pipe its route picks.
// With a writer thread or process it returns their credits in one write:
// one credit write per read, since a goroutine per pipe has no readiness
// call to batch credits by. With an unbounded writer it returns none.
//
// A failure to move the tokens on is returned, after the read, its tokens
// and the writes that did succeed are counted: they happened, and the
// run's token accounting needs them.
func (w *Worker) Got(pipe int, b []byte) error {
	d := w.d
	n, tok := w.decode(b)
	w.reads.Add(1)
	w.events.Add(1)
	w.tokens.Add(uint64(n))
	var writes uint64
	var err error
	if d.self {
		writes, err = w.forward(pipe, n, tok)
	} else if d.credit >= 0 {
		if err = tokens.SendCredit(d.credit, &w.cbuf, uint64(n)); err == nil {
			writes = 1
		}
	}
	if writes > 0 {
		w.writes.Add(writes)
	}
	return err
}

// Sender is how a RingQueued driver (uring-rw) moves tokens on: Send
// queues one write of tok to fd, the write end of pipe, as an operation of
// its own. tok is reused after Send returns: the sender copies it.
type Sender interface {
	Send(pipe int, fd int32, tok []byte) error
}

// Took counts one read of pipe that a RingQueued driver's io_uring made,
// which returned b (not empty): an event carrying len(b) tokens, as Got
// counts a read(2). It moves the tokens on through s rather than with
// write(2): in self mode one Send per token to the pipe its route picks,
// each counted by Wrote once the kernel has written it; with a writer
// thread or process their credits are owed until PutCredit, which the
// driver calls once per batch of completions, as the reader returns
// credits once per readiness call.
func (w *Worker) Took(pipe int, b []byte, s Sender) error {
	d := w.d
	n, tok := w.decode(b)
	w.reads.Add(1)
	w.events.Add(1)
	w.tokens.Add(uint64(n))
	switch {
	case d.self:
		j := w.route.After(pipe)
		for t := range n {
			if t > 0 {
				j = w.route.Pick()
			}
			if err := s.Send(j, w.wfds[j], tok); err != nil {
				return err
			}
		}
	case d.credit >= 0:
		w.owed += uint64(n)
	}
	return nil
}

// PutCredit puts in buf the credit word for the tokens Took has taken since
// the last call and returns the credit pipe's write end, for the driver to
// queue one write of buf to it; ok is false when there is nothing to
// credit (self mode, an unbounded writer, no tokens).
func (w *Worker) PutCredit(buf *[8]byte) (fd int32, ok bool) {
	if w.owed == 0 || w.d.credit < 0 {
		return -1, false
	}
	binary.LittleEndian.PutUint64(buf[:], w.owed)
	w.owed = 0
	return w.d.credit, true
}

// Wrote counts n writes a RingQueued driver's io_uring completed: tokens
// forwarded in self mode, credit words otherwise. A token is sent when its
// write completes, not when it is queued.
func (w *Worker) Wrote(n uint64) { w.writes.Add(n) }

// Entered counts a RingQueued driver's io_uring_enter system calls (every
// one, as Backend.WaitSyscalls does) and the completions it reaped.
func (w *Worker) Entered(syscalls, completions uint64) {
	if syscalls > 0 {
		w.syscalls.Add(syscalls)
	}
	if completions > 0 {
		w.completions.Add(completions)
	}
}

// moved counts n tokens moved one by one, each a read of one token and a
// write of it (the bypass in self mode).
func (w *Worker) moved(n uint64) {
	w.events.Add(n)
	w.tokens.Add(n)
	w.reads.Add(n)
	w.writes.Add(n)
}

// followed counts n tokens read one by one, each an event of one token,
// and writes credit words (the bypass with a writer process).
func (w *Worker) followed(n, writes uint64) {
	w.events.Add(n)
	w.tokens.Add(n)
	w.reads.Add(n)
	w.writes.Add(writes)
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

// addWorkers adds the counts of a Driver's workers to a snapshot. The sum
// is not taken under the seqlock (the workers do not publish through it):
// an interval may see an event without its tokens for a moment; the final
// snapshot, taken after Drive has returned, is exact.
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
