package pipebench

import (
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/internal/tokens"
)

// gatedPipe is a readiness answer for one real pipe holding one token in
// self mode (the reader reads it and writes it back): every Wait reports
// the pipe ready, as poll would, and once calls have been made the next
// Wait waits for the test to open the gate before it answers.
type gatedPipe struct {
	tag   int32
	calls atomic.Uint64 // Waits answered
	hold  uint64        // the Wait that waits for the gate (calls+1)
	at    chan struct{} // closed when that Wait has begun
	gate  chan struct{} // closed by the test
}

func (g *gatedPipe) Add(int, int32) error    { return nil }
func (g *gatedPipe) Remove(int, int32) error { return nil }
func (g *gatedPipe) CtlCalls() uint64        { return 0 }
func (g *gatedPipe) WaitSyscalls() uint64    { return g.calls.Load() }
func (g *gatedPipe) Close() error            { return nil }

func (g *gatedPipe) Wait(ready []int32, _ time.Duration) (int, error) {
	if g.calls.Load()+1 == g.hold {
		close(g.at)
		<-g.gate
	}
	g.calls.Add(1)
	ready[0] = g.tag
	return 1, nil
}

// gatedReader is a self-mode reader of one pipe holding one token, whose
// Wait number hold waits for the gate.
func gatedReader(t *testing.T, hold uint64) (*reader, *gatedPipe, *atomic.Bool) {
	t.Helper()
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(p[0]); unix.Close(p[1]) })
	if _, err := unix.Write(p[1], []byte{'t'}); err != nil {
		t.Fatal(err)
	}
	g := &gatedPipe{hold: hold, at: make(chan struct{}), gate: make(chan struct{})}
	stop := new(atomic.Bool)
	rd := &reader{
		Surface:   Surface{pipes: 1, self: true, wfds: []int32{int32(p[1])}, credit: -1, noun: "pipe", stop: stop, ctr: &counters{ack: make(chan struct{}, 1)}},
		forwarder: forwarder{wfds: []int32{int32(p[1])}, route: tokens.NewRouter(RouteNext, 1, 1), noun: "pipe"},
		be:        g, rfds: []int32{int32(p[0])}, ready: make([]int32, 1), timeout: -1,
	}
	rd.newHists(1)
	return rd, g, stop
}

// TestReaderHoldsCountsUntilAsked: the reader publishes its counts every
// publishEvery calls, not per call; a snapshot the reporter asks for
// (ask, fresh) holds every call the reader has made, and so does the
// counters' state once the loop has returned.
func TestReaderHoldsCountsUntilAsked(t *testing.T) {
	const before = publishEvery / 2 // calls made before the gate
	rd, g, stop := gatedReader(t, before+1)
	done := make(chan error, 1)
	go func() { done <- rd.loop() }()
	<-g.at // before calls made, the next waits
	if got := rd.ctr.snapshot(); got.Calls != 0 || got.Events != 0 {
		t.Errorf("after %d calls, unasked: published %d calls, %d events; want none (held back until %d)", before, got.Calls, got.Events, publishEvery)
	}
	rd.ctr.ask()
	close(g.gate) // call before+1 answers, then the reader publishes
	rd.ctr.fresh(10 * time.Second)
	got := rd.ctr.snapshot()
	if got.Calls < before+1 || got.Events != got.Calls || got.Tokens != got.Calls || got.Writes != got.Calls || got.Reads != got.Calls {
		t.Errorf("asked after call %d: %+v; want at least %d calls, and one event, token, read and write per call", before+1, got, before+1)
	}
	if got.WaitSyscalls != got.Calls {
		t.Errorf("asked: %d wait system calls published for %d calls, want one each", got.WaitSyscalls, got.Calls)
	}
	stop.Store(true)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	final := rd.ctr.snapshot()
	if h := rd.readyHist(); final.Calls != g.calls.Load() || final.Events != final.Calls || h.Count() != final.Calls {
		t.Errorf("after the loop: %d calls published, %d made, %d events, %d in the per-call histogram; want all equal", final.Calls, g.calls.Load(), final.Events, h.Count())
	}
	if rd.ctr.served.Load() {
		t.Error("the loop has returned, and its counters still say a reader serves them")
	}
}

// TestReaderPublishesEvery: unasked, the reader publishes once
// publishEvery calls have gone by, so that a snapshot taken without
// waiting misses at most that many calls.
func TestReaderPublishesEvery(t *testing.T) {
	rd, g, stop := gatedReader(t, publishEvery+1)
	done := make(chan error, 1)
	go func() { done <- rd.loop() }()
	<-g.at
	if got := rd.ctr.snapshot(); got.Calls != publishEvery || got.Events != publishEvery {
		t.Errorf("after %d calls, unasked: published %d calls, %d events; want %d of each", publishEvery, got.Calls, got.Events, publishEvery)
	}
	stop.Store(true)
	close(g.gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestFreshWithoutReader: counters no reader loop serves (a Loop's, or a
// loop that has returned) answer a request at once, never after the wait.
func TestFreshWithoutReader(t *testing.T) {
	c := &counters{ack: make(chan struct{}, 1)}
	start := time.Now()
	c.ask()
	c.fresh(time.Hour)
	if time.Since(start) > time.Minute {
		t.Error("fresh waited for a reader that does not exist")
	}
}
