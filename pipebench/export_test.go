package pipebench

import (
	"sync/atomic"
	"time"

	"github.com/pipebench/pipebench/internal/tokens"
	"github.com/pipebench/pipebench/stats"
)

// LoopAllocs runs the reader's hot loop for calls readiness calls on be over
// rfds/wfds in self mode with tokens already in flight, and returns the
// events it handled. It lets the external tests check that the loop
// allocates nothing, on a real backend.
type LoopHarness struct {
	rd   reader
	stop atomic.Bool
	ctr  counters
	cw   *countingWait
}

type countingWait struct {
	Mechanism
	left int
	stop *atomic.Bool
}

func (c *countingWait) Wait(ready []int32, timeout time.Duration) (int, error) {
	n, err := c.Mechanism.Wait(ready, timeout)
	c.left--
	if c.left <= 0 {
		c.stop.Store(true)
	}
	return n, err
}

// NewLoopHarness builds a self-mode reader over be.
func NewLoopHarness(be Mechanism, rfds, wfds []int32, edge bool) *LoopHarness {
	h := &LoopHarness{}
	h.cw = &countingWait{Mechanism: be, stop: &h.stop}
	h.rd = reader{Surface: Surface{pipes: len(rfds), self: true, wfds: wfds, credit: -1, noun: "pipe", ctr: &h.ctr, stop: &h.stop},
		forwarder: forwarder{wfds: wfds, route: tokens.NewRouter(RouteRandom, 1, len(rfds)), noun: "pipe"},
		be:        h.cw, rfds: rfds, ready: make([]int32, len(rfds)), edge: edge, timeout: -1}
	h.rd.newHists(len(rfds))
	return h
}

// Loop runs calls readiness calls and returns the error of the loop.
func (h *LoopHarness) Loop(calls int) error {
	h.cw.left = calls
	h.stop.Store(false)
	return h.rd.loop()
}

// Events is the events handled so far.
func (h *LoopHarness) Events() uint64 { return h.ctr.events.Load() }

// Calls is the readiness calls counted so far, Empty those that returned
// nothing, Spurious the reads of ready pipes that found nothing.
func (h *LoopHarness) Calls() uint64    { return h.ctr.calls.Load() }
func (h *LoopHarness) Empty() uint64    { return h.ctr.empty.Load() }
func (h *LoopHarness) Spurious() uint64 { return h.ctr.spurious.Load() }

// PerCall is the reader's ready-per-call histogram, as the run makes it
// once the loop has returned.
func (h *LoopHarness) PerCall() *stats.Hist {
	hist := h.rd.readyHist()
	return &hist
}

// SetReaderGrace sets how long the reader may take to return once the
// window has closed before a writer process is killed, and returns a
// function that restores it.
func SetReaderGrace(d time.Duration) (restore func()) {
	old := readerGrace
	readerGrace = d
	return func() { readerGrace = old }
}

// OwnedBy makes the harness's reader count what it receives for each of
// writers writers, as with several writer threads (pipe i is writer i mod
// writers'), with no credit pipes (an unbounded writer's).
func (h *LoopHarness) OwnedBy(writers int) {
	h.rd.creditWriters(&Config{Workload: Workload{Pipes: len(h.rd.rfds)}, Threads: Threads{Writers: writers}}, 0, len(h.rd.rfds), nil)
}

// Received is what the reader received from each writer's pipes (OwnedBy).
func (h *LoopHarness) Received() []uint64 { return h.rd.received }

// Tokens is the tokens received so far.
func (h *LoopHarness) Tokens() uint64 { return h.ctr.tokens.Load() }

// PlanFDs is planFDs: the writer mode and descriptor plan of c with base
// descriptors open under limit, without the machine's own; its refusal
// names the Config's fields.
func PlanFDs(c *Config, base int, limit uint64) (fdPlan, error) { return planFDs(c, base, limit, nil) }
