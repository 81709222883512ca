package pipebench_test

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pipebench/pipebench/epoll"
	"github.com/pipebench/pipebench/pipebench"
)

// TestRunLendsPs: a run adds one P to GOMAXPROCS for each thread that waits
// in raw system calls (the reader, a writer thread) and gives them back.
func TestRunLendsPs(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	for _, c := range []struct {
		writer pipebench.WriterMode
		lent   int
	}{
		{pipebench.WriterSelf, 1},
		{pipebench.WriterThread, 2},
		{pipebench.WriterProcess, 1},
	} {
		t.Run(c.writer.String(), func(t *testing.T) {
			cfg := baseConfig()
			cfg.Writer = c.writer
			var during int
			var obs pipebench.Observers
			obs.OnSetup = func(pipebench.Setup) { during = runtime.GOMAXPROCS(0) }
			res, err := pipebench.Run(cfg, obs)
			if err != nil {
				t.Fatal(err)
			}
			checkAccounting(t, res)
			if res.Setup.LentPs != c.lent || res.Setup.GOMAXPROCS != before+c.lent || during != before+c.lent {
				t.Errorf("lent %d Ps, GOMAXPROCS %d in the result and %d during the run; want %d lent, %d",
					res.Setup.LentPs, res.Setup.GOMAXPROCS, during, c.lent, before+c.lent)
			}
			if after := runtime.GOMAXPROCS(0); after != before {
				t.Errorf("GOMAXPROCS %d after the run, %d before", after, before)
			}
		})
	}
}

// TestRunStopTheWorld: garbage collections, each stopping the world twice,
// go on while the measured threads sleep, and the run still accounts for
// every token. With epoll and a writer thread, the reader and the writer
// sleep in raw system calls that the runtime interrupts with a signal: a
// wait the kernel restarts after a signal would hang this test. The bypass
// with a writer process waits in blocking reads, which the kernel does
// restart: each stop of the world then lasts until the next token arrives,
// never forever, since the writer, in its own process, always holds the
// credit for it; the run ends, its waiting read ended by the writer closing
// its write ends.
func TestRunStopTheWorld(t *testing.T) {
	for _, c := range []struct {
		backend *pipebench.Factory
		writer  pipebench.WriterMode
	}{
		{&epoll.Factories[0], pipebench.WriterThread},
		{&pipebench.Bypass, pipebench.WriterProcess},
	} {
		for _, inFlight := range []int{1, 8} {
			name := fmt.Sprintf("%s -writer %s -l %d", c.backend.Name, c.writer, inFlight)
			cfg := baseConfig()
			cfg.Backend, cfg.Writer, cfg.InFlight = c.backend, c.writer, inFlight
			cfg.Duration, cfg.Interval = time.Second, 100*time.Millisecond
			obs, stopGC := collectEvery(5 * time.Millisecond)
			gc0 := gcCycles()
			res, err := pipebench.Run(cfg, obs)
			stopGC()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			checkAccounting(t, res)
			if res.Setup.Writer != c.writer {
				t.Errorf("%s: writer %s", name, res.Setup.Writer)
			}
			if n := gcCycles() - gc0; n < 10 {
				t.Errorf("%s: %d garbage collections in a 1 s run that forced one every 5 ms", name, n)
			}
		}
	}
}

// TestBypassProcessStoppedWriter: a writer process stopped (SIGSTOP) in the
// middle of a run leaves the bypass's reader waiting in a blocking read for
// a token that will not come; the run stalls, and once the window has closed
// the writer is killed to free the reader: the run ends with an error, not a
// hang. Garbage collection is off for it: a stop of the world while the
// writer is stopped would wait for the reader's read, as long as the writer
// stays stopped (docs/workload.md says so), and stop the reporter that
// notices the stall.
func TestBypassProcessStoppedWriter(t *testing.T) {
	defer pipebench.SetReaderGrace(300 * time.Millisecond)()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	cfg := baseConfig()
	cfg.Backend, cfg.Writer, cfg.InFlight = &pipebench.Bypass, pipebench.WriterProcess, 1
	cfg.Duration, cfg.Interval, cfg.StallAfter = 5*time.Second, 100*time.Millisecond, 300*time.Millisecond
	var obs pipebench.Observers
	obs.OnSetup = func(s pipebench.Setup) {
		time.AfterFunc(200*time.Millisecond, func() { syscall.Kill(s.WriterPID, syscall.SIGSTOP) })
	}
	t0 := time.Now()
	res, err := pipebench.Run(cfg, obs)
	var stall *pipebench.StallError
	if !errors.As(err, &stall) {
		t.Fatalf("a stopped writer process: got %v, want a stall", err)
	}
	checkFailedResult(t, res)
	if res.Totals.Events == 0 {
		t.Errorf("no events before the writer stopped: %+v", res)
	}
	if took := time.Since(t0); took > 4*time.Second {
		t.Errorf("the run took %v to end after its writer stopped", took)
	}
}

// collectEvery is the Observers of a run that start, once its setup is
// done, a goroutine that forces a garbage collection (two stops of the
// world) at once and then every period; the function it returns ends that
// goroutine and waits for it.
func collectEvery(period time.Duration) (obs pipebench.Observers, stop func()) {
	quit := make(chan struct{})
	var wg sync.WaitGroup
	obs.OnSetup = func(pipebench.Setup) {
		wg.Go(func() {
			for {
				select {
				case <-quit:
					return
				default:
				}
				runtime.GC()
				time.Sleep(period)
			}
		})
	}
	return obs, func() {
		close(quit)
		wg.Wait()
	}
}

func gcCycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// BenchmarkStopTheWorld measures how long the runtime takes to stop the
// world while a thread-mode run's reader and writer sleep in raw system
// calls: a garbage collection every 5 ms during a 2 s run, and the runtime's
// own histogram of the time from a stop-the-world's request to every
// goroutine stopped (/sched/pauses/stopping/gc). Reported: its median and
// maximum, in ns. Run with: go test -run '^$' -bench StopTheWorld ./pipebench
func BenchmarkStopTheWorld(b *testing.B) {
	for range b.N {
		cfg := baseConfig()
		cfg.Backend, cfg.Writer, cfg.InFlight = &epoll.Factories[0], pipebench.WriterThread, 1
		cfg.Duration, cfg.Interval = 2*time.Second, 500*time.Millisecond
		obs, stopGC := collectEvery(5 * time.Millisecond)
		before := stoppingHist()
		_, err := pipebench.Run(cfg, obs)
		stopGC()
		if err != nil {
			b.Fatal(err)
		}
		after := stoppingHist()
		var n uint64
		for i := range after.Counts {
			after.Counts[i] -= before.Counts[i]
			n += after.Counts[i]
		}
		b.ReportMetric(float64(n), "stops/op")
		b.ReportMetric(histQuantile(after, 0.5)*1e9, "p50-stopping-ns")
		b.ReportMetric(histQuantile(after, 1)*1e9, "max-stopping-ns")
	}
}

func stoppingHist() *metrics.Float64Histogram {
	s := []metrics.Sample{{Name: "/sched/pauses/stopping/gc:seconds"}}
	metrics.Read(s)
	h := s[0].Value.Float64Histogram()
	return &metrics.Float64Histogram{Counts: append([]uint64(nil), h.Counts...), Buckets: h.Buckets}
}

// histQuantile is the upper bound of the bucket holding quantile q.
func histQuantile(h *metrics.Float64Histogram, q float64) float64 {
	var total uint64
	for _, c := range h.Counts {
		total += c
	}
	if total == 0 {
		return 0
	}
	want := uint64(q * float64(total))
	var seen uint64
	for i, c := range h.Counts {
		seen += c
		if seen >= want && c > 0 {
			return h.Buckets[i+1]
		}
	}
	return h.Buckets[len(h.Buckets)-1]
}
