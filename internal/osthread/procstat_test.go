package osthread

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

const statStart = `cpu  100 1 50 1000 2 0 3 4 0 0
cpu0 60 1 20 500 1 0 2 1 0 0
cpu1 40 0 30 500 1 0 1 3 0 0
intr 1 2 3
ctxt 5
`

const statEnd = `cpu  250 1 90 1100 2 0 3 14 0 0
cpu0 160 1 40 520 1 0 2 1 0 0
cpu1 90 0 50 580 1 0 1 13 0 0
intr 1 2 3
`

// The meter's deltas on two fixture files: the total and each CPU, in
// nanoseconds at USER_HZ 100 (a tick is 10ms), and the CPUs the run may
// use.
func TestStatMeterKnownDeltas(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "stat")
	if err := os.WriteFile(p, []byte(statStart), 0o644); err != nil {
		t.Fatal(err)
	}
	m := newStatMeter(p, []int{1}).Start()
	if err := os.WriteFile(p, []byte(statEnd), 0o644); err != nil {
		t.Fatal(err)
	}
	got := m.Stop()
	tick := 10 * time.Millisecond
	if got.Missing != "" || got.Total.CPU != -1 || got.Total.User != 150*tick || got.Total.System != 40*tick || got.Total.Steal != 10*tick {
		t.Fatalf("total %+v (%s)", got.Total, got.Missing)
	}
	if got.Total.Busy() != 190*tick || got.Total.Idle != 100*tick {
		t.Errorf("busy %v idle %v, want 1.9s and 1s", got.Total.Busy(), got.Total.Idle)
	}
	if len(got.PerCPU) != 2 || got.PerCPU[0].User != 100*tick || got.PerCPU[1].Idle != 80*tick {
		t.Errorf("per CPU %+v", got.PerCPU)
	}
	if a := got.Allowed(); a.Busy() != 70*tick || a.Idle != 80*tick || a.Steal != 10*tick {
		t.Errorf("the allowed CPU 1: %+v, want 0.7s busy, 0.8s idle", a)
	}
}

func TestParseStatRefusesBadLines(t *testing.T) {
	for _, s := range []string{"intr 1 2\n", "cpu 1 2 3\n", "cpuX 1 2 3 4 5 6 7 8\n", "cpu 1 2 3 4 5 6 7 x\n"} {
		if _, err := ParseStat([]byte(s), nil); err == nil {
			t.Errorf("%q: no error", s)
		}
	}
	if m := newStatMeter(filepath.Join(t.TempDir(), "none"), []int{0}).Start().Stop(); m.Missing == "" {
		t.Error("no file: nothing missing")
	}
}

// The machine's own /proc/stat, where there is one: the window's total is
// at least its CPUs' sum of time elapsed, roughly.
func TestStatMeterOnThisMachine(t *testing.T) {
	if _, err := os.Stat(ProcStat); err != nil {
		t.Skip("no /proc/stat")
	}
	m := NewStatMeter().Start()
	time.Sleep(50 * time.Millisecond)
	got := m.Stop()
	if got.Missing != "" || len(got.PerCPU) == 0 || len(got.CPUs) == 0 {
		t.Fatalf("%+v", got)
	}
	all := got.Total.Busy() + got.Total.Idle + got.Total.IOWait + got.Total.Steal
	if all <= 0 {
		t.Errorf("no time counted in 50ms: %+v", got.Total)
	}
}
