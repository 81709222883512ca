package envinfo

import (
	"os"
	"runtime"
	"testing"
	"testing/fstest"
)

func TestReadFSFixture(t *testing.T) {
	e := ReadFS(os.DirFS("testdata/root"))
	if e.CPUModel != "Intel(R) Xeon(R) Test CPU @ 2.00GHz" {
		t.Errorf("cpu model %q", e.CPUModel)
	}
	if e.ClockSource != "kvm-clock" {
		t.Errorf("clock source %q", e.ClockSource)
	}
	if len(e.Mitigations) != 3 || e.Mitigations["meltdown"] != "Mitigation: PTI" {
		t.Errorf("mitigations %v", e.Mitigations)
	}
	if got, want := e.MitigationSummary(), "1 mitigated, 1 not affected, vulnerable: mds"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	if e.Cores != runtime.NumCPU() || e.GoVersion != runtime.Version() || e.Kernel == "" || e.FDHard == 0 {
		t.Errorf("process facts missing: %+v", e)
	}
	if len(e.Missing) != 0 {
		t.Errorf("fixture has everything, yet missing: %v", e.Missing)
	}
}

func TestReadFSMissingSaysSo(t *testing.T) {
	e := ReadFS(fstest.MapFS{})
	if len(e.Missing) != 3 {
		t.Errorf("want cpu model, clock source and mitigations reported missing, got %v", e.Missing)
	}
	if e.MitigationSummary() != "unknown" {
		t.Errorf("summary %q", e.MitigationSummary())
	}
}

func TestReadThisMachine(t *testing.T) {
	e := Read()
	if e.CPUModel == "" && len(e.Missing) == 0 {
		t.Error("no cpu model and nothing reported missing")
	}
}
