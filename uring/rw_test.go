package uring

import (
	"strings"
	"testing"
	"time"

	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/pipebench/pipebenchtest"
)

// runRW runs f for a short while, 50 pipes and inFlight tokens, writer
// self, skipping where the kernel refuses it.
func runRW(t *testing.T, f pipebench.Factory, inFlight int) *pipebench.Result {
	t.Helper()
	res, err := pipebench.Run(pipebench.Config{Pipes: 50, InFlight: inFlight, Backend: &f, Writer: pipebench.WriterSelf,
		Duration: 400 * time.Millisecond, Interval: 100 * time.Millisecond})
	pipebenchtest.SkipIfRefused(t, err)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestRWBatches: with several tokens in flight, one io_uring_enter hands
// over many writes and brings back many completions: fewer system calls
// than tokens (the bypass makes two per token), and each token one read
// completion and one write completion at least.
func TestRWBatches(t *testing.T) {
	for _, f := range RWFactories {
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
