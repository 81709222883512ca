package envinfo

import (
	"os"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
)

func TestReadFSFixture(t *testing.T) {
	e := ReadFS(os.DirFS("testdata/root"))
	if e.CPUModel != "Intel(R) Xeon(R) Test CPU @ 2.00GHz" {
		t.Errorf("cpu model %q", e.CPUModel)
	}
	if e.CPUSignature != "family 6 model 85" || e.CPU() != "Intel(R) Xeon(R) Test CPU @ 2.00GHz (family 6 model 85)" {
		t.Errorf("cpu signature %q, cpu %q", e.CPUSignature, e.CPU())
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
	if e.KernelCmdline != "BOOT_IMAGE=/vmlinuz root=/dev/sda1 mitigations=auto" {
		t.Errorf("kernel command line %q: want the kernel's part, without init's after --", e.KernelCmdline)
	}
	if e.CPUFreqDriver != "acpi-cpufreq" || e.CPUFreqGovernor != "performance" {
		t.Errorf("cpufreq %q %q", e.CPUFreqDriver, e.CPUFreqGovernor)
	}
	if e.CPUIdleDriver != "intel_idle" || e.CPUIdleGovernor != "menu" {
		t.Errorf("cpuidle %q %q: want the driver, and the governor from current_governor_ro where current_governor is not", e.CPUIdleDriver, e.CPUIdleGovernor)
	}
	if e.SMT != "on" || e.NUMANodes != 2 || e.Hypervisor != "QEMU Standard PC (Q35)" {
		t.Errorf("smt %q, numa nodes %d, hypervisor %q", e.SMT, e.NUMANodes, e.Hypervisor)
	}
	if e.LoadAverage != [3]float64{0.5, 0.25, 0.1} {
		t.Errorf("load average %v", e.LoadAverage)
	}
	if len(e.Missing) != 0 {
		t.Errorf("fixture has everything, yet missing: %v", e.Missing)
	}
}

func TestHypervisorFlagWithoutVendor(t *testing.T) {
	root := fstest.MapFS{"proc/cpuinfo": {Data: []byte("model name\t: X\nflags\t\t: fpu hypervisor\n")}}
	if got := hypervisor(root); got != "present, vendor not exposed" {
		t.Errorf("hypervisor %q", got)
	}
	root["proc/cpuinfo"] = &fstest.MapFile{Data: []byte("model name\t: X\nflags\t\t: fpu hypervisorx\n")}
	if got := hypervisor(root); got != "" {
		t.Errorf("no hypervisor flag, yet %q", got)
	}
}

func TestReadFSMissingSaysSo(t *testing.T) {
	e := ReadFS(fstest.MapFS{})
	for _, what := range []string{"cpu model", "clock source", "mitigations", "kernel command line",
		"cpu frequency driver", "cpuidle driver", "smt", "numa nodes", "hypervisor", "load average"} {
		found := false
		for _, m := range e.Missing {
			found = found || strings.HasPrefix(m, what)
		}
		if !found {
			t.Errorf("%s not reported missing: %q", what, e.Missing)
		}
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

func TestBuildString(t *testing.T) {
	for _, c := range []struct {
		b    Build
		want string
	}{
		{Build{Version: Unknown, Revision: Unknown}, "unknown"},
		{Build{Version: Unknown, Revision: "0123456789abcdef", Dirty: true}, "0123456789ab+dirty"},
		{Build{Version: "v1.2.0", Revision: "0123456789abcdef"}, "v1.2.0 0123456789ab"},
		{Build{Version: "v0.0.0-20261206035617-0123456789ab", Revision: "0123456789abcdef"}, "0123456789ab"},
		{Build{Version: "v0.0.0-20261206035617-0123456789ab+dirty", Revision: "0123456789abcdef", Dirty: true}, "0123456789ab+dirty"},
	} {
		if got := c.b.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.b, got, c.want)
		}
	}
	if b := ReadBuild(); b.Module == "" || b.Revision == "" || b.Version == "" {
		t.Errorf("an empty field, want %q where the build does not say: %+v", Unknown, b)
	}
}

// A host whose cpuinfo names no family or model (another architecture, a
// trimmed container) keeps its model name alone, with no empty brackets.
func TestCPUWithoutSignature(t *testing.T) {
	for _, info := range []string{"model name\t: X\n", "model name\t: X\ncpu family\t: 25\n", "model name\t: X\nmodel\t\t: 1\n"} {
		e := ReadFS(fstest.MapFS{"proc/cpuinfo": {Data: []byte(info)}})
		if e.CPUSignature != "" || e.CPU() != "X" {
			t.Errorf("cpuinfo %q: signature %q, cpu %q", info, e.CPUSignature, e.CPU())
		}
	}
}
