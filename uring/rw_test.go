package uring

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/pipebench/pipebenchtest"
)

// runRW runs f for a short while, 50 pipes and inFlight tokens, writer
// self, skipping where the kernel refuses it.
func runRW(t *testing.T, f pipebench.Factory, inFlight int) *pipebench.Result {
	t.Helper()
	res, err := pipebench.Run(pipebench.Config{
		Workload:  pipebench.Workload{Pipes: 50, InFlight: inFlight},
		Readiness: pipebench.Readiness{Backend: &f},
		Threads:   pipebench.Threads{Writer: pipebench.WriterSelf},
		Window:    pipebench.Window{Duration: 400 * time.Millisecond, Interval: 100 * time.Millisecond},
	}, pipebench.Observers{})
	pipebenchtest.SkipIfRefused(t, err)
	if err != nil {
		t.Fatal(err)
	}
	if err := res.CheckValid(); err != nil {
		t.Fatal(err)
	}
	return res
}

// TestRWBatches: with several tokens in flight, one io_uring_enter hands
// over many writes and brings back many completions: fewer system calls
// than tokens (the bypass makes two per token), and each token one read
// completion and one write completion at least. Not uring-rw-sqpoll: its
// reader waits whenever the kernel's thread has not yet posted anything,
// which on two busy cores can be once per completion.
func TestRWBatches(t *testing.T) {
	for _, f := range []pipebench.Factory{RWFactory, RWOneShotFactory} {
		t.Run(f.Name, func(t *testing.T) {
			res := runRW(t, f, 16)
			tot := res.Totals
			if tot.WaitSyscalls >= tot.Tokens {
				t.Errorf("%d io_uring_enter calls for %d tokens: want fewer calls than tokens", tot.WaitSyscalls, tot.Tokens)
			}
			if tot.Completions < tot.Events+tot.Writes {
				t.Errorf("%d completions for %d reads and %d writes", tot.Completions, tot.Events, tot.Writes)
			}
		})
	}
}

// TestSQPollThread: the SQPOLL variant's kernel thread is metered over the
// window as its own row: it used CPU (it polls the submission queue), all
// of it system time, and it is part of the process's getrusage, which
// holds at least the reader thread's time and the kernel thread's.
func TestSQPollThread(t *testing.T) {
	res := runRW(t, RWSQPollFactory, 4)
	k := res.KernelThread
	if k == nil {
		t.Fatal("no kernel thread metered for uring-rw-sqpoll")
	}
	if k.TID <= 0 || !strings.Contains(k.Name, "sq") || k.CPU() <= 0 || k.User != 0 {
		t.Errorf("kernel thread %+v: want a thread id, a name, CPU time, no user time", *k)
	}
	// getrusage's and the thread clocks' granularities differ by a tick.
	if slack := 20 * time.Millisecond; res.Process.CPU()+slack < res.ReaderThread.CPU()+k.CPU() {
		t.Errorf("process CPU %v < reader %v + SQ thread %v: getrusage(RUSAGE_SELF) leaves the SQ thread out",
			res.Process.CPU(), res.ReaderThread.CPU(), k.CPU())
	}
	for _, f := range []pipebench.Factory{RWFactory, RWOneShotFactory} {
		if res := runRW(t, f, 4); res.KernelThread != nil {
			t.Errorf("%s runs no kernel thread, but one was metered: %+v", f.Name, *res.KernelThread)
		}
	}
}

// TestRWStopTheWorld: garbage collections every 2 ms, each stopping the
// world twice, go on while the reader sleeps in io_uring_enter, a raw
// system call the runtime's signal ends with EINTR (the poll backend's
// conformance check StopTheWorld holds the same call to that): the
// driver's loop and its end-of-run reaping take EINTR as a wake-up, not a
// failure, the collections happen, and every token is accounted for.
func TestRWStopTheWorld(t *testing.T) {
	for _, f := range RWFactories {
		t.Run(f.Name, func(t *testing.T) {
			cfg := pipebench.Config{
				Workload:  pipebench.Workload{Pipes: 20, InFlight: 1},
				Readiness: pipebench.Readiness{Backend: &f},
				Threads:   pipebench.Threads{Writer: pipebench.WriterThread},
				Window:    pipebench.Window{Duration: 500 * time.Millisecond, Interval: 100 * time.Millisecond, WaitTimeout: 2 * time.Second},
			}
			quit := make(chan struct{})
			var wg sync.WaitGroup
			var cycles atomic.Int64
			var obs pipebench.Observers
			obs.OnSetup = func(pipebench.Setup) {
				wg.Go(func() {
					tick := time.NewTicker(2 * time.Millisecond)
					defer tick.Stop()
					for {
						select {
						case <-quit:
							return
						case <-tick.C:
							runtime.GC()
							cycles.Add(1)
						}
					}
				})
			}
			res, err := pipebench.Run(cfg, obs)
			close(quit)
			wg.Wait()
			pipebenchtest.SkipIfRefused(t, err)
			if err != nil {
				t.Fatal(err)
			}
			if err := res.CheckValid(); err != nil || res.Tokens.Received == 0 {
				t.Errorf("%v; tokens %+v", err, res.Tokens)
			}
			if n := cycles.Load(); n < 10 {
				t.Errorf("%d garbage collections in a 500 ms run that forced one every 2 ms", n)
			}
		})
	}
}

// TestRWDriveAllocatesNothing: the driver's loop allocates nothing per
// event: a self-mode window (a read completion, a write queued and a write
// completion per token) allocates far fewer objects than it handles events
// (what it does allocate is per run and per interval: the write slots, the
// worker, the reporter's lines). Self mode, as gonet's test: a writer
// thread's credit word goes through the same queued write, and thread
// mode on two busy cores, under the race detector, can move too few
// tokens in a short window to tell per-run allocations from per-event
// ones. uring-rw-sqpoll runs the same loop (only the ring's submission
// differs, a load of its flags) and is left out for the same reason.
func TestRWDriveAllocatesNothing(t *testing.T) {
	bare, _, _ := Variant("uring-rw-nofixed-nodefer-noregring-notaskrunflag-nobatch")
	for _, f := range []pipebench.Factory{RWFactory, RWOneShotFactory, *bare} {
		t.Run(f.Name, func(t *testing.T) {
			var m0, m1 runtime.MemStats
			res, err := pipebench.Run(pipebench.Config{
				Workload:  pipebench.Workload{Pipes: 20, InFlight: 4},
				Readiness: pipebench.Readiness{Backend: &f},
				Threads:   pipebench.Threads{Writer: pipebench.WriterSelf},
				Window:    pipebench.Window{Duration: 500 * time.Millisecond, Interval: 250 * time.Millisecond},
			}, pipebench.Observers{
				OnSetup: func(pipebench.Setup) { runtime.ReadMemStats(&m0) },
				OnDone:  func() { runtime.ReadMemStats(&m1) },
			})
			pipebenchtest.SkipIfRefused(t, err)
			if err != nil {
				t.Fatal(err)
			}
			if err := res.CheckValid(); err != nil {
				t.Fatal(err)
			}
			events := res.Totals.Events
			if allocs := m1.Mallocs - m0.Mallocs; events < 1000 || allocs > events/100 {
				t.Errorf("%d allocations in a window of %d events, want fewer than one per 100 events", allocs, events)
			}
		})
	}
}
