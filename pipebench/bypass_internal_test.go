package pipebench

import (
	"runtime"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"

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
				defer unix.Close(p[0])
				defer unix.Close(p[1])
				wfds[i] = int32(p[1])
				if err := b.Add(p[0], int32(i)); err != nil {
					t.Fatal(err)
				}
			}
			stop := new(atomic.Bool)
			format := tokens.Byte
			if latency {
				format = tokens.Stamp
			}
			d := &Drive{pipes: pipes, inFlight: inFlight, self: true, wfds: wfds, credit: -1, format: format, noun: "pipe", ctr: &counters{}, stop: stop}
			w := d.Workers(1)[0]
			at := make([]int32, inFlight)
			var buf [8]byte
			for k := range at {
				at[k] = int32(k * 3)
				tok := format.Next(&buf)
				if n, e := tokens.Write(wfds[at[k]], tok); e != 0 || n != len(tok) {
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
