package compare

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pipebench/pipebench/internal/envinfo"
)

// differences lists what differs between the records' machines, builds
// and settings, and warns when anything besides the kernel does.
func (c *Comparison) differences(records []*Loaded) {
	type fact struct {
		what   string
		of     func(*Loaded) string
		kernel bool // a difference a kernel comparison is made of
	}
	env := func(f func(e *envinfo.Environment) string) func(*Loaded) string {
		return func(l *Loaded) string { return f(&l.Environment) }
	}
	facts := []fact{
		{"kernel", env(func(e *envinfo.Environment) string { return e.Kernel }), true},
		{"kernel build", env(func(e *envinfo.Environment) string { return e.KernelBuild }), true},
		{"kernel command line", env(func(e *envinfo.Environment) string { return e.KernelCmdline }), false},
		{"cpu", env(func(e *envinfo.Environment) string { return e.CPU() }), false},
		{"cores", env(func(e *envinfo.Environment) string { return fmt.Sprint(e.Cores) }), false},
		{"smt", env(func(e *envinfo.Environment) string { return e.SMT }), false},
		{"numa nodes", env(func(e *envinfo.Environment) string { return fmt.Sprint(e.NUMANodes) }), false},
		{"hypervisor", env(func(e *envinfo.Environment) string { return e.Hypervisor }), false},
		{"cpufreq", env(func(e *envinfo.Environment) string {
			return strings.TrimSpace(e.CPUFreqDriver + " " + e.CPUFreqGovernor)
		}), false},
		{"cpuidle", env(func(e *envinfo.Environment) string {
			return strings.TrimSpace(e.CPUIdleDriver + " " + e.CPUIdleGovernor)
		}), false},
		{"clock source", env(func(e *envinfo.Environment) string { return e.ClockSource }), false},
		{"mitigations", env(func(e *envinfo.Environment) string { return e.MitigationSummary() }), false},
		{"go", env(func(e *envinfo.Environment) string { return e.GoVersion }), false},
		{"gomaxprocs", env(func(e *envinfo.Environment) string { return fmt.Sprint(e.GOMAXPROCS) }), false},
		{"fd limit", env(func(e *envinfo.Environment) string { return fmt.Sprintf("%d/%d", e.FDSoft, e.FDHard) }), false},
		{"pipebench", func(l *Loaded) string { return l.Pipebench.String() }, false},
	}
	// Every flag, but those that only say where the output went.
	ignore := map[string]bool{"o": true, "format": true, "cpuprofile": true, "kprofile": true, "plot": true, "ref": true}
	flagNames := map[string]bool{}
	for _, l := range records {
		for k := range l.Flags {
			if !ignore[k] {
				flagNames[k] = true
			}
		}
	}
	var flags []string
	for k := range flagNames {
		flags = append(flags, k)
	}
	sort.Strings(flags)
	for _, k := range flags {
		facts = append(facts, fact{"-" + k, func(l *Loaded) string {
			v, ok := l.Flags[k]
			if !ok {
				return "(no such flag)"
			}
			return v
		}, false})
	}
	var others []string
	for _, f := range facts {
		var vs []string
		differ := false
		for _, l := range records {
			v := f.of(l)
			differ = differ || (len(vs) > 0 && v != vs[0])
			vs = append(vs, v)
		}
		if differ {
			c.Differences = append(c.Differences, Difference{What: f.what, Values: vs})
			if !f.kernel {
				others = append(others, f.what)
			}
		}
	}
	if len(others) > 0 {
		c.Warnings = append(c.Warnings, "the records differ in more than the kernel ("+strings.Join(others, ", ")+"): a change may be theirs")
	}
}

// OthersThreshold is the share of a CPU that other programs (or, as
// steal, the hypervisor) may take during a run's window before compare
// warns: a tenth of a CPU.
const OthersThreshold = 0.1

// othersWarnings warns of each record in one of whose runs' windows other
// programs used more than OthersThreshold of a CPU: the machine's busy
// time from /proc/stat less the run's own processes' (Loaded.Others), or
// the hypervisor took as much (steal). A record made before pipebench
// measured it says nothing.
func (c *Comparison) othersWarnings(records []*Loaded) {
	for i, l := range records {
		label := c.Inputs[0].Label + " " + l.Path
		if c.By == "" {
			label = c.Inputs[i].Label + " " + l.Path
		}
		if l.Others > OthersThreshold {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: other programs used up to %.2f of a CPU in a run's window "+
				"(the machine's busy time less the run's own processes; warned above %.2f): a change may be theirs", label, l.Others, OthersThreshold))
		}
		if l.Steal > OthersThreshold {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: the hypervisor took up to %.2f of a CPU in a run's window (steal; warned above %.2f)",
				label, l.Steal, OthersThreshold))
		}
	}
}
