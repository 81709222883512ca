package pipebench_test

import (
	"os"
	"slices"
	"testing"

	"github.com/pipebench/pipebench/internal/osthread"
	"github.com/pipebench/pipebench/pipebench"
)

// threadRun is a short run with a writer thread and one token in flight,
// checked, and the CPUs this process may use.
func threadRun(t *testing.T) (*pipebench.Result, []int) {
	t.Helper()
	cfg := baseConfig()
	cfg.Writer, cfg.InFlight = pipebench.WriterThread, 1
	res, err := pipebench.Run(cfg, pipebench.Observers{})
	if err != nil {
		t.Fatal(err)
	}
	checkAccounting(t, res)
	cpus, err := osthread.AllowedCPUs()
	if err != nil {
		t.Fatal(err)
	}
	return res, cpus
}

// TestRunCountsHalts: a run counts the halts of the CPUs it may use at its
// window's edges, where the machine shows cpuidle, and says why not where
// it does not; never a count of 0 standing for none.
func TestRunCountsHalts(t *testing.T) {
	res, cpus := threadRun(t)
	h := res.Halts
	if !slices.Equal(h.CPUs, cpus) {
		t.Errorf("halts of CPUs %v, want the affinity mask's %v", h.CPUs, cpus)
	}
	if _, err := os.Stat(osthread.CPURoot + "/cpu0/cpuidle"); err != nil {
		if h.Entries != nil || h.Missing == "" {
			t.Errorf("no cpuidle here (%v), yet halts %v, missing %q: want no count and why", err, h.Entries, h.Missing)
		}
		return
	}
	if h.Entries == nil || h.Missing != "" {
		t.Errorf("cpuidle here, yet no halts counted: missing %q", h.Missing)
	}
}
