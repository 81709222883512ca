package pipebench_test

import (
	"os"
	"slices"
	"testing"
	"time"

	"github.com/pipebench/pipebench/internal/osthread"
)

// TestRunReadsMachineCPU: a run reads the machine's CPU time at its
// window's edges, for the CPUs it may use and every CPU: the time counted
// covers the window on each CPU (to /proc/stat's 10ms ticks and a margin
// for a CPU taken from the VM), and what other programs used is the busy
// time less the run's own, never below 0.
func TestRunReadsMachineCPU(t *testing.T) {
	if _, err := os.Stat(osthread.ProcStat); err != nil {
		t.Skip("no /proc/stat")
	}
	res, cpus := threadRun(t)
	m := res.Machine
	if m.Missing != "" || !slices.Equal(m.CPUs, cpus) || len(m.PerCPU) == 0 {
		t.Fatalf("machine %+v, want the CPUs %v and each CPU's time", m, cpus)
	}
	tot := m.Total
	counted := tot.Busy() + tot.Idle + tot.IOWait + tot.Steal
	want := res.Elapsed * time.Duration(len(m.PerCPU))
	if counted < want/2 || counted > 2*want+time.Duration(len(m.PerCPU))*50*time.Millisecond {
		t.Errorf("%v counted over a window of %v on %d CPUs", counted, res.Elapsed, len(m.PerCPU))
	}
	others, steal, ok := res.Others()
	if !ok || others < 0 || steal < 0 || others > float64(len(m.PerCPU)) {
		t.Errorf("others %v steal %v (%v)", others, steal, ok)
	}
}
