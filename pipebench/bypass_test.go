package pipebench_test

import (
	"testing"
	"time"

	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/pipebench/pipebenchtest"
)

// TestBypass is the loops' part of the conformance suite on the bypass, a
// Loop that reads on the reader thread: registration, and the harness runs
// with the writers it runs with (self, process).
func TestBypass(t *testing.T) { pipebenchtest.TestLoop(t, pipebench.Bypass) }

// TestBypassProcessLatency: the bypass following a writer process's route
// (here the next-pipe route, 4 tokens in flight) reads every token the
// writer's stamps carry, records a write-to-read time for each, and gives
// back at most one credit word per token read.
func TestBypassProcessLatency(t *testing.T) {
	cfg := pipebench.Config{
		Workload:  pipebench.Workload{Pipes: 30, InFlight: 4, Route: pipebench.RouteNext, RouteSeed: 3, Latency: true},
		Readiness: pipebench.Readiness{Backend: &pipebench.Bypass},
		Threads:   pipebench.Threads{Writer: pipebench.WriterProcess},
		Window:    pipebench.Window{Duration: 300 * time.Millisecond, Interval: 100 * time.Millisecond},
	}
	res, err := pipebench.Run(cfg, pipebench.Observers{})
	if err != nil {
		t.Fatal(err)
	}
	checkAccounting(t, res) // a latency per token received among them
	if res.Latency.Highest() == 0 {
		t.Error("latency mode without a latency histogram")
	}
	// Credits every 2 tokens (half of 4): about half as many writes as reads.
	if w, r := res.Totals.Writes, res.Totals.Reads; w > r/2+1 || w < r/2-1 {
		t.Errorf("%d credit words for %d tokens read, want one per 2", w, r)
	}
}
