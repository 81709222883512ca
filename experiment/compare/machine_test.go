package compare_test

import (
	"strings"
	"testing"

	"github.com/pipebench/pipebench/experiment/compare"
	"github.com/pipebench/pipebench/experiment/record"
	cmpstat "github.com/pipebench/pipebench/stats/compare"
)

// TestCompareCPUSignature: two records from hosts whose CPU has the same
// model name but another family and model (a VM's "AMD EPYC" on two
// generations) differ in their cpu, which compare says, as it says of any
// machine fact besides the kernel.
func TestCompareCPUSignature(t *testing.T) {
	n := func(x uint64) *uint64 { return &x }
	a := haltsRecord(t, []*uint64{n(1), n(2), n(3)})
	b := haltsRecord(t, []*uint64{n(1), n(2), n(3)})
	a.Environment.CPUModel, a.Environment.CPUSignature = "AMD EPYC", "family 25 model 1"
	b.Environment.CPUModel, b.Environment.CPUSignature = "AMD EPYC", "family 26 model 2"
	c, err := compare.New(record.Head{}, [][]*compare.Loaded{{a}, {b}}, compare.Options{Floor: cmpstat.DefaultFloor})
	if err != nil {
		t.Fatal(err)
	}
	var cpu *compare.Difference
	for i := range c.Differences {
		if c.Differences[i].What == "cpu" {
			cpu = &c.Differences[i]
		}
	}
	if cpu == nil {
		t.Fatalf("differences %+v: no cpu", c.Differences)
	}
	if got := strings.Join(cpu.Values, " | "); got != "AMD EPYC (family 25 model 1) | AMD EPYC (family 26 model 2)" {
		t.Errorf("cpu values %q", got)
	}
	b.Environment.CPUSignature = a.Environment.CPUSignature
	if c, err = compare.New(record.Head{}, [][]*compare.Loaded{{a}, {b}}, compare.Options{Floor: cmpstat.DefaultFloor}); err != nil {
		t.Fatal(err)
	}
	for _, d := range c.Differences {
		if d.What == "cpu" {
			t.Errorf("same cpu, yet a difference %+v", d)
		}
	}
}

// TestCompareCPUIdle: two boots whose cpuidle driver or governor differ (a
// kernel A/B's idle=poll, or another governor) differ in their cpuidle,
// which compare says before the tables.
func TestCompareCPUIdle(t *testing.T) {
	n := func(x uint64) *uint64 { return &x }
	a := haltsRecord(t, []*uint64{n(1), n(2), n(3)})
	b := haltsRecord(t, []*uint64{n(1), n(2), n(3)})
	a.Environment.CPUIdleDriver, a.Environment.CPUIdleGovernor = "intel_idle", "menu"
	b.Environment.CPUIdleDriver, b.Environment.CPUIdleGovernor = "intel_idle", "teo"
	c, err := compare.New(record.Head{}, [][]*compare.Loaded{{a}, {b}}, compare.Options{Floor: cmpstat.DefaultFloor})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range c.Differences {
		if d.What == "cpuidle" {
			if got := strings.Join(d.Values, " | "); got != "intel_idle menu | intel_idle teo" {
				t.Errorf("cpuidle values %q", got)
			}
			return
		}
	}
	t.Errorf("differences %+v: no cpuidle", c.Differences)
}
