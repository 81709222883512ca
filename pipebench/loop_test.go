package pipebench_test

import (
	"testing"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/epoll"
	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/pipebench/pipebenchtest"
	"github.com/pipebench/pipebench/poll"
	fdselect "github.com/pipebench/pipebench/select"
	"github.com/pipebench/pipebench/uring"
)

// loopPipes makes pipes pipes, registers their read ends with be under
// their index, puts inFlight tokens in them and closes them when tb ends.
func loopPipes(tb testing.TB, be pipebench.Mechanism, pipes, inFlight int) (rfds, wfds []int32) {
	tb.Helper()
	rfds, wfds = make([]int32, pipes), make([]int32, pipes)
	for i := range pipes {
		var p [2]int
		if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { unix.Close(p[0]); unix.Close(p[1]) })
		rfds[i], wfds[i] = int32(p[0]), int32(p[1])
		if err := be.Add(p[0], int32(i)); err != nil {
			tb.Fatal(err)
		}
	}
	for i := range inFlight {
		if _, err := unix.Write(int(wfds[i*7%pipes]), []byte{'t'}); err != nil {
			tb.Fatal(err)
		}
	}
	return rfds, wfds
}

// TestLoopAllocatesNothing runs the reader's hot loop on real pipes with
// tokens in flight and checks that a thousand readiness calls, with their
// reads and forwarding writes, allocate nothing.
func TestLoopAllocatesNothing(t *testing.T) {
	for _, f := range []*pipebench.Factory{&poll.Factory, &fdselect.Factory, &epoll.LevelFactory, &epoll.EdgeFactory, &epoll.OneShotFactory, &uring.Factory, &uring.OneShotFactory} {
		t.Run(f.Name, func(t *testing.T) {
			const pipes, inFlight = 64, 8
			be, err := f.Open(pipebench.Options{Pipes: pipes, MaxFD: 1 << 16})
			pipebenchtest.SkipIfRefused(t, err) // io_uring, where the kernel or a seccomp filter refuses it
			if err != nil {
				t.Fatal(err)
			}
			defer be.Close()
			rfds, wfds := loopPipes(t, be, pipes, inFlight)
			h := pipebench.NewLoopHarness(be, rfds, wfds, f.Features.Has(pipebench.EdgeTriggered))
			allocs := testing.AllocsPerRun(5, func() {
				if err := h.Loop(1000); err != nil {
					t.Fatal(err)
				}
			})
			if allocs != 0 {
				t.Errorf("%v allocations per 1000 readiness calls", allocs)
			}
			if h.Events() < 1000 {
				t.Errorf("only %d events in 6000 calls with %d tokens in flight", h.Events(), inFlight)
			}
			// Every call is recorded once: its ready count, 0 if empty.
			pc := h.PerCall()
			if pc.Count() != h.Calls() || pc.Zeros() != h.Empty() {
				t.Errorf("ready/call histogram holds %d calls, %d empty; the counters %d, %d", pc.Count(), pc.Zeros(), h.Calls(), h.Empty())
			}
			if !f.Features.Has(pipebench.EdgeTriggered) && pc.Sum() != h.Events()+h.Spurious() {
				t.Errorf("ready pipes over all calls %d, want events %d + spurious %d: one read per ready pipe", pc.Sum(), h.Events(), h.Spurious())
			}
		})
	}
}

// TestLoopSeveralWritersAllocatesNothing: the reader's loop with several
// writers (what it owes each counted per event, paid per call) allocates
// nothing either, and what it counts for the writers adds up to the tokens
// it received.
func TestLoopSeveralWritersAllocatesNothing(t *testing.T) {
	const pipes, inFlight, writers = 64, 8, 3
	be, err := epoll.LevelFactory.Open(pipebench.Options{Pipes: pipes, MaxFD: 1 << 16})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	rfds, wfds := loopPipes(t, be, pipes, inFlight)
	h := pipebench.NewLoopHarness(be, rfds, wfds, false)
	h.OwnedBy(writers)
	allocs := testing.AllocsPerRun(5, func() {
		if err := h.Loop(1000); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per 1000 readiness calls", allocs)
	}
	var sum uint64
	for _, n := range h.Received() {
		sum += n
	}
	if len(h.Received()) != writers || sum != h.Tokens() || sum == 0 {
		t.Errorf("received %v from %d writers, adding up to %d; the reader received %d tokens", h.Received(), writers, sum, h.Tokens())
	}
}

// BenchmarkReaderLoop times the reader's hot loop in self mode on epoll,
// 64 real pipes with 8 tokens in flight: per readiness call, with its
// reads and forwarding writes (events/call says how many).
func BenchmarkReaderLoop(b *testing.B) {
	const pipes, inFlight = 64, 8
	be, err := epoll.LevelFactory.Open(pipebench.Options{Pipes: pipes, MaxFD: 1 << 16})
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close()
	rfds, wfds := loopPipes(b, be, pipes, inFlight)
	h := pipebench.NewLoopHarness(be, rfds, wfds, false)
	b.ResetTimer()
	if err := h.Loop(b.N); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(h.Events())/float64(b.N), "events/call")
}
