package pipebench

import (
	"runtime"
	"sync/atomic"
	"time"
)

// counters are what the reader publishes for the reporter: one atomic add
// per counter per publication, and a publication every publishEvery
// readiness calls or when the reporter asks for one (fresh), never per
// event or per call. seq makes a snapshot consistent: it is odd while the
// reader publishes, and a reader of the counters retries until it sees the
// same even value before and after.
type counters struct {
	seq                                                   atomic.Uint64
	events, tokens, calls, empty, reads, writes, spurious atomic.Uint64
	changes, waitSyscalls                                 atomic.Uint64
	// served is set while a reader loop publishes into these counters;
	// want asks it for a publication, which it acknowledges on ack
	// (buffered, one slot) once the counters hold every call it has
	// made. A Loop's workers publish for themselves (addWorkers).
	served atomic.Bool
	want   atomic.Bool
	ack    chan struct{}
	// workers are a Loop's per-goroutine counters (driver.go), added to
	// every snapshot; nil for the other backends.
	workers atomic.Pointer[[]*Worker]
	// The counters of several readers are allocated one after another:
	// padded, two readers' never share a cache line.
	_ [64]byte
}

// ask asks the reader loop publishing into c, if one does, to publish what
// it holds; fresh waits for it.
func (c *counters) ask() {
	if !c.served.Load() {
		return
	}
	select {
	case <-c.ack: // a late acknowledgement of an earlier request
	default:
	}
	c.want.Store(true)
}

// fresh waits, at most wait, until the reader loop has published since
// ask: its readiness call returns within the run's wait timeout (plus
// -delay), so a reader that does not answer by then is stopped or
// stalled, and the snapshot takes what it has published. The counts a
// reader holds back between publications are then at most publishEvery
// calls'.
func (c *counters) fresh(wait time.Duration) {
	if !c.served.Load() || !c.want.Load() {
		return
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-c.ack:
	case <-t.C:
	}
}

// answer is the reader's side of ask: called after each publication, it
// acknowledges a request (a channel operation once per interval, not per
// call).
func (c *counters) answer() {
	if c.want.Load() {
		c.want.Store(false)
		select {
		case c.ack <- struct{}{}:
		default:
		}
	}
}

// begin and end bracket one publication by the reader.
func (c *counters) begin() { c.seq.Add(1) }
func (c *counters) end()   { c.seq.Add(1) }

// Counts is a snapshot of the reader's counters.
type Counts struct {
	// Events are successful reads of pipes reported ready.
	Events uint64 `json:"events"`
	// Tokens are bytes those reads carried.
	Tokens uint64 `json:"tokens"`
	// Calls are readiness calls (Mechanism.Wait); EmptyCalls those that
	// returned nothing.
	Calls      uint64 `json:"calls"`
	EmptyCalls uint64 `json:"empty_calls"`
	// WaitSyscalls are the system calls of the readiness mechanism the
	// reader made (Backend.WaitSyscalls): one per call for epoll, poll and
	// select (two for nested epoll that finds a descriptor, Config.Nest),
	// plus any made again after EINTR; for io_uring every
	// io_uring_enter, those that only submitted included, and none for a
	// call answered from the completion ring.
	WaitSyscalls uint64 `json:"wait_syscalls"`
	// Reads are the reader's read(2) calls, those that found nothing
	// included; Writes its write(2) calls that wrote: tokens it forwarded in
	// self mode, credit words otherwise. A write that fails ends the run
	// and is not counted.
	Reads  uint64 `json:"reads"`
	Writes uint64 `json:"writes"`
	// Ctl are interest-changing calls (epoll_ctl) made while measuring.
	Ctl uint64 `json:"ctl_calls"`
	// Spurious are reads of a pipe reported ready that found nothing.
	Spurious uint64 `json:"spurious"`
	// Changes are descriptors removed and re-added by -churn.
	Changes uint64 `json:"churn_changes,omitempty"`
	// Completions are the io_uring completions a RingQueued Loop reaped
	// (its reads', its writes' and their cancellations'), for completions
	// per io_uring_enter; 0 for every other backend.
	Completions uint64 `json:"completions,omitempty"`
}

func (c *counters) snapshot() Counts {
	for {
		s := c.seq.Load()
		if s&1 == 0 {
			n := c.load()
			if c.seq.Load() == s {
				return c.addWorkers(n)
			}
		}
		runtime.Gosched()
	}
}

func (c *counters) load() Counts {
	return Counts{
		Events:       c.events.Load(),
		Tokens:       c.tokens.Load(),
		Calls:        c.calls.Load(),
		EmptyCalls:   c.empty.Load(),
		WaitSyscalls: c.waitSyscalls.Load(),
		Reads:        c.reads.Load(),
		Writes:       c.writes.Load(),
		Spurious:     c.spurious.Load(),
		Changes:      c.changes.Load(),
	}
}

// Add returns a + b.
func (a Counts) Add(b Counts) Counts {
	return Counts{
		Events: a.Events + b.Events, Tokens: a.Tokens + b.Tokens,
		Calls: a.Calls + b.Calls, EmptyCalls: a.EmptyCalls + b.EmptyCalls, WaitSyscalls: a.WaitSyscalls + b.WaitSyscalls,
		Reads: a.Reads + b.Reads, Writes: a.Writes + b.Writes,
		Ctl: a.Ctl + b.Ctl, Spurious: a.Spurious + b.Spurious,
		Changes: a.Changes + b.Changes, Completions: a.Completions + b.Completions,
	}
}

// Sub returns a - b.
func (a Counts) Sub(b Counts) Counts {
	return Counts{
		Events: a.Events - b.Events, Tokens: a.Tokens - b.Tokens,
		Calls: a.Calls - b.Calls, EmptyCalls: a.EmptyCalls - b.EmptyCalls, WaitSyscalls: a.WaitSyscalls - b.WaitSyscalls,
		Reads: a.Reads - b.Reads, Writes: a.Writes - b.Writes,
		Ctl: a.Ctl - b.Ctl, Spurious: a.Spurious - b.Spurious,
		Changes: a.Changes - b.Changes, Completions: a.Completions - b.Completions,
	}
}
