package pipebench_test

import (
	"testing"
	"time"

	"github.com/pipebench/pipebench/epoll"
	"github.com/pipebench/pipebench/pipebench"
)

// TestAsyncPreemptOffRefused: with the runtime's asynchronous preemption
// off (GODEBUG=asyncpreemptoff=1), a writer thread waiting for credits
// could leave a stop-the-world waiting for good, so Prepare refuses a
// bounded run with a writer thread (or auto, which may choose one), and
// accepts the writers that cannot hang it: self, a process, a thread
// that never waits (unbounded).
func TestAsyncPreemptOffRefused(t *testing.T) {
	t.Setenv("GODEBUG", "asyncpreemptoff=1")
	for _, c := range []struct {
		writer   pipebench.WriterMode
		inFlight int
		refused  bool
	}{
		{pipebench.WriterThread, 4, true},
		{pipebench.WriterAuto, 4, true},
		{pipebench.WriterSelf, 4, false},
		{pipebench.WriterProcess, 4, false},
		{pipebench.WriterThread, 0, false},
	} {
		cfg := pipebench.Config{Workload: pipebench.Workload{Pipes: 8, InFlight: c.inFlight}, Readiness: pipebench.Readiness{Backend: &epoll.LevelFactory}, Threads: pipebench.Threads{Writer: c.writer}, Window: pipebench.Window{Duration: time.Second, Interval: time.Second}}
		_, err := pipebench.Prepare(cfg, 0, nil)
		if c.refused != (err != nil) {
			t.Errorf("Writer %v, InFlight %d: Prepare: %v, want refused %v", c.writer, c.inFlight, err, c.refused)
		}
		if ce, ok := err.(*pipebench.ConfigError); c.refused && err != nil && (!ok || ce.Fields[0] != "Writer") {
			t.Errorf("Writer %v: Prepare: %v, want a ConfigError naming Writer first", c.writer, err)
		}
	}
}
