package compare_test

import (
	"strings"
	"testing"

	"github.com/pipebench/pipebench/experiment/compare"
	"github.com/pipebench/pipebench/experiment/record"
	"github.com/pipebench/pipebench/internal/envinfo"
	cmpstat "github.com/pipebench/pipebench/stats/compare"
)

// differenceOf compares two records of the fixture's runs whose machines
// edit makes differ, and returns what compare says of the fact what, or
// nil when it says nothing.
func differenceOf(t *testing.T, what string, edit func(a, b *envinfo.Environment)) *compare.Difference {
	t.Helper()
	n := func(x uint64) *uint64 { return &x }
	a := haltsRecord(t, []*uint64{n(1), n(2), n(3)})
	b := haltsRecord(t, []*uint64{n(1), n(2), n(3)})
	edit(&a.Environment, &b.Environment)
	c, err := compare.New(record.Head{}, [][]*compare.Loaded{{a}, {b}}, compare.Options{Floor: cmpstat.DefaultFloor})
	if err != nil {
		t.Fatal(err)
	}
	for i := range c.Differences {
		if c.Differences[i].What == what {
			return &c.Differences[i]
		}
	}
	return nil
}

// checkValues wants a difference d whose values, A's then B's, are want.
func checkValues(t *testing.T, d *compare.Difference, want string) {
	t.Helper()
	if d == nil {
		t.Fatalf("no difference, want %q", want)
	}
	if got := strings.Join(d.Values, " | "); got != want {
		t.Errorf("%s: values %q, want %q", d.What, got, want)
	}
}

// TestCompareCPUSignature: two records from hosts whose CPU has the same
// model name but another family and model (a VM's "AMD EPYC" on two
// generations) differ in their cpu, which compare says, as it says of any
// machine fact besides the kernel.
func TestCompareCPUSignature(t *testing.T) {
	cpu := differenceOf(t, "cpu", func(a, b *envinfo.Environment) {
		a.CPUModel, a.CPUSignature = "AMD EPYC", "family 25 model 1"
		b.CPUModel, b.CPUSignature = "AMD EPYC", "family 26 model 2"
	})
	checkValues(t, cpu, "AMD EPYC (family 25 model 1) | AMD EPYC (family 26 model 2)")
	if d := differenceOf(t, "cpu", func(a, b *envinfo.Environment) {
		a.CPUModel, a.CPUSignature = "AMD EPYC", "family 25 model 1"
		b.CPUModel, b.CPUSignature = a.CPUModel, a.CPUSignature
	}); d != nil {
		t.Errorf("same cpu, yet a difference %+v", d)
	}
}

// TestCompareCPUIdle: two boots whose cpuidle driver or governor differ (a
// kernel A/B's idle=poll, or another governor) differ in their cpuidle,
// which compare says before the tables.
func TestCompareCPUIdle(t *testing.T) {
	d := differenceOf(t, "cpuidle", func(a, b *envinfo.Environment) {
		a.CPUIdleDriver, a.CPUIdleGovernor = "intel_idle", "menu"
		b.CPUIdleDriver, b.CPUIdleGovernor = "intel_idle", "teo"
	})
	checkValues(t, d, "intel_idle menu | intel_idle teo")
}
