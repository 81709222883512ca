package pipebench

import (
	"runtime"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/internal/osthread"
	"github.com/pipebench/pipebench/internal/tokens"
)

// TestBypassMoveAllocatesNothing runs the bypass's hot loop on real pipes,
// a thousand tokens moved per run, in latency mode too (its histogram is a
// full one), and checks that it allocates nothing.
func TestBypassMoveAllocatesNothing(t *testing.T) {
	for _, latency := range []bool{false, true} {
		name := "byte"
		if latency {
			name = "latency"
		}
		t.Run(name, func(t *testing.T) {
			const pipes, inFlight, moves = 16, 4, 1000
			b, wfds := bypassOnPipes(t, pipes, false)
			stop := new(atomic.Bool)
			format := tokens.Byte
			if latency {
				format = tokens.Stamp
			}
			d := &Surface{pipes: pipes, inFlight: inFlight, self: true, wfds: wfds, credit: -1, format: format, noun: "pipe", ctr: &counters{}, stop: stop}
			w := d.Workers(1)[0]
			at := make([]int32, inFlight)
			var buf [8]byte
			for k := range at {
				at[k] = int32(k * 3)
				tok := format.Next(&buf)
				if n, e := tokens.Write(wfds[at[k]], tok).Split(); e != 0 || n != len(tok) {
					t.Fatal(e)
				}
			}
			// A watcher stops the loop once it has moved the run's tokens;
			// it allocates nothing either.
			var target atomic.Uint64
			var done atomic.Bool
			defer done.Store(true)
			go func() {
				for !done.Load() {
					if w.events.Load() >= target.Load() {
						stop.Store(true)
					}
					runtime.Gosched()
				}
			}()
			allocs := testing.AllocsPerRun(5, func() {
				target.Add(moves)
				stop.Store(false)
				if err := b.move(d, w, at, format.Size()); err != nil {
					t.Fatal(err)
				}
			})
			if allocs != 0 {
				t.Errorf("%v allocations per %d tokens moved", allocs, moves)
			}
			if got := w.events.Load(); got < 6*moves {
				t.Errorf("%d tokens moved in 6 runs of %d", got, moves)
			}
			if latency && w.lat.Count() != w.events.Load() {
				t.Errorf("%d latencies recorded for %d tokens", w.lat.Count(), w.events.Load())
			}
		})
	}
}

// TestBypassFollowAllocatesNothing runs the bypass's loop with a writer
// (the harness's writer loop, on a goroutine, standing for the writer
// process) on real blocking pipes, a thousand tokens read per run, and
// checks that neither allocates (nor the goroutine that stops the loop).
// Both sleep in raw system calls, keeping their Ps, so the test lends the
// runtime two more, as the harness does for its measured threads.
func TestBypassFollowAllocatesNothing(t *testing.T) {
	const pipes, inFlight, reads = 16, 4, 1000
	_, release := osthread.LendPs(2)
	defer release()
	b, wfds := bypassOnPipes(t, pipes, true)
	cr, cw, err := tokens.NewCreditPipe(false, inFlight)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(int(cr))
	defer unix.Close(int(cw))
	writerStop := new(atomic.Bool)
	wr := &tokens.Writer{WFDs: wfds, Route: tokens.NewRouter(RouteRandom, 9, pipes), InFlight: inFlight, Credits: cr, Stop: writerStop, Format: tokens.Byte}
	wdone := make(chan error, 1)
	go func() { wdone <- wr.Run() }()
	stop := new(atomic.Bool)
	d := &Surface{pipes: pipes, inFlight: inFlight, route: RouteRandom, routeSeed: 9, credit: cw, format: tokens.Byte, noun: "pipe", ctr: &counters{}, stop: stop}
	w := d.Workers(1)[0]
	f := &followed{route: tokens.NewRouter(RouteRandom, 9, pipes)}
	var target atomic.Uint64
	var done atomic.Bool
	go func() {
		for !done.Load() {
			if w.events.Load() >= target.Load() {
				stop.Store(true)
			}
			runtime.Gosched()
		}
	}()
	// testing.AllocsPerRun would run this at GOMAXPROCS 1, where the
	// writer's goroutine could never run while the loop waits in a raw
	// read: the same count, taken by hand.
	// The stopper may act on the last run's target just after a run
	// begins, so a run follows again until it has read its tokens.
	run := func() {
		start := w.events.Load()
		target.Store(start + reads)
		for w.events.Load()-start < reads {
			stop.Store(false)
			if err := b.follow(d, w, f); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Warm-up: the runtime starts the threads the lent Ps need. It may
	// still start one later (a few allocations of its own, once), so the
	// count is the least of three rounds of 5 runs: an allocation per token
	// would put a thousand in every round.
	for range 3 {
		run()
	}
	allocs := -1.0
	for range 3 {
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		for range 5 {
			run()
		}
		runtime.ReadMemStats(&m1)
		if a := float64(m1.Mallocs-m0.Mallocs) / 5; allocs < 0 || a < allocs {
			allocs = a
		}
	}
	done.Store(true)
	writerStop.Store(true)
	var sb [8]byte
	if err := tokens.SendCredit(cw, &sb, tokens.StopWord); err != nil {
		t.Fatal(err)
	}
	if err := <-wdone; err != nil {
		t.Fatal(err)
	}
	if allocs != 0 {
		t.Errorf("%v allocations per %d tokens followed", allocs, reads)
	}
	if got := w.events.Load(); got < 18*reads {
		t.Errorf("%d tokens read in 18 runs of %d", got, reads)
	}
	if sent, got := wr.Counts.Sent, w.events.Load(); sent < got || sent > got+inFlight {
		t.Errorf("the writer sent %d tokens, the bypass read %d: want at most %d in flight", sent, got, inFlight)
	}
}

// bypassOnPipes opens a bypass over pipes real pipes, their read ends
// registered, and returns it with the write ends (non-blocking). The read
// ends block when blocking is set (the bypass following a writer), and are
// non-blocking otherwise. The test closes them all when it ends.
func bypassOnPipes(t *testing.T, pipes int, blocking bool) (*bypass, []int32) {
	t.Helper()
	be, err := openBypass(Options{Pipes: pipes, MaxFD: 1 << 16})
	if err != nil {
		t.Fatal(err)
	}
	b := be.(*bypass)
	wfds := make([]int32, pipes)
	for i := range pipes {
		var p [2]int
		if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { unix.Close(p[0]); unix.Close(p[1]) })
		if err := unix.SetNonblock(p[0], !blocking); err != nil {
			t.Fatal(err)
		}
		wfds[i] = int32(p[1])
		if err := b.Add(p[0], int32(i)); err != nil {
			t.Fatal(err)
		}
	}
	return b, wfds
}
