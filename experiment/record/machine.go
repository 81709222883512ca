package record

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pipebench/pipebench/experiment/text"
	"github.com/pipebench/pipebench/internal/envinfo"
)

// MachineLines lay the machine out as a text output ends with it, under
// the label "machine", wrapped at text.Width: what a kernel A/B turns on,
// so that two outputs pasted side by side show what differed. The kernel,
// the CPU (model, family and model numbers), cores and SMT, the clock
// source, the cpuidle driver and governor, the cpufreq driver and
// governor, Go, the CPU vulnerabilities' mitigations, and the settings of
// the kernel's command line that move these figures (ABSettings).
// Verbose adds more (the caller's: GOMAXPROCS, where the threads ran),
// then the descriptor limits, the hypervisor, NUMA nodes, the load when
// the work began, the kernel's build, its whole command line, and what
// could not be read.
func MachineLines(e envinfo.Environment, verbose bool, more ...string) []string {
	items := []string{"Linux " + e.Kernel, e.CPU(), cores(e), "clock " + orUnknown(e.ClockSource)}
	if idle := idleText(e); idle != "" {
		items = append(items, idle)
	}
	items = append(items, freqText(e), e.GoVersion, "mitigations "+e.MitigationSummary())
	if ab := ABSettings(e.KernelCmdline); len(ab) > 0 && !verbose {
		items = append(items, "cmdline "+strings.Join(ab, " "))
	}
	if verbose {
		items = append(items, more...)
		items = append(items, fmt.Sprintf("fds %d/%d", e.FDSoft, e.FDHard))
		if e.Hypervisor != "" {
			items = append(items, "hypervisor "+e.Hypervisor)
		}
		items = append(items, fmt.Sprintf("NUMA nodes %d", e.NUMANodes),
			fmt.Sprintf("load %g %g %g", e.LoadAverage[0], e.LoadAverage[1], e.LoadAverage[2]))
		if e.KernelBuild != "" {
			items = append(items, "kernel build "+e.KernelBuild)
		}
		if e.KernelCmdline != "" {
			items = append(items, "cmdline "+e.KernelCmdline)
		}
		if len(e.Missing) > 0 {
			items = append(items, "not read: "+strings.Join(e.Missing, "; "))
		}
	}
	for i := range items[:len(items)-1] {
		items[i] += ","
	}
	return text.Items("machine", items, " ")
}

// cores is the CPU count with SMT as the kernel's smt/control says it:
// "2 cores, SMT on"; "no SMT" where the CPU has none.
func cores(e envinfo.Environment) string {
	n := text.Plural(e.Cores, "core")
	switch e.SMT {
	case "":
		return n
	case "notsupported", "notimplemented":
		return n + ", no SMT"
	}
	return n + ", SMT " + e.SMT
}

// idleText is cpuidle's driver and governor: "cpuidle intel_idle
// (menu)"; "no cpuidle" where the kernel showed none, "" in a record made
// before pipebench read it.
func idleText(e envinfo.Environment) string {
	switch {
	case e.CPUIdleDriver == "" && !slices.ContainsFunc(e.Missing, func(m string) bool { return strings.HasPrefix(m, "cpuidle") }):
		return ""
	case e.CPUIdleDriver == "":
		return "no cpuidle"
	case e.CPUIdleGovernor == "":
		return "cpuidle " + e.CPUIdleDriver
	}
	return "cpuidle " + e.CPUIdleDriver + " (" + e.CPUIdleGovernor + ")"
}

// freqText is cpufreq's driver and governor: "cpufreq acpi-cpufreq
// (performance)"; a virtual machine often has none.
func freqText(e envinfo.Environment) string {
	switch {
	case e.CPUFreqDriver == "":
		return "no cpufreq"
	case e.CPUFreqGovernor == "":
		return "cpufreq " + e.CPUFreqDriver
	}
	return "cpufreq " + e.CPUFreqDriver + " (" + e.CPUFreqGovernor + ")"
}

func orUnknown(s string) string {
	if s == "" {
		return envinfo.Unknown
	}
	return s
}

// abKeys are the kernel parameters that move what pipebench measures:
// the speculation mitigations, idle and tick handling, CPU isolation, the
// frequency drivers, preemption, the clock, the scheduler's, and the
// hardening that costs every system call or allocation. A parameter
// matches by its name (before "=") or, for those ending in "." or "_",
// by its prefix.
var abKeys = []string{
	"mitigations", "nospectre_v1", "nospectre_v2", "spectre_v2", "spectre_v2_user", "spectre_bhi",
	"spec_store_bypass_disable", "spec_rstack_overflow", "pti", "nopti", "mds", "tsx", "tsx_async_abort",
	"l1tf", "retbleed", "srbds", "mmio_stale_data", "gather_data_sampling", "reg_file_data_sampling",
	"nosmt", "idle", "intel_idle.", "processor.", "cpuidle.", "cpuidle_haltpoll.", "haltpoll.",
	"nohz", "nohz_full", "isolcpus", "rcu_nocbs", "irqaffinity", "skew_tick", "intel_pstate",
	"amd_pstate", "cpufreq.", "preempt", "threadirqs", "clocksource", "tsc", "sched_", "psi",
	"init_on_alloc", "init_on_free", "randomize_kstack_offset", "nowatchdog", "nmi_watchdog",
	"transparent_hugepage", "audit",
}

// ABSettings are the parameters of the kernel's command line that a kernel
// A/B turns on (abKeys), in the order given: "mitigations=off idle=poll".
func ABSettings(cmdline string) []string {
	var out []string
	for _, p := range strings.Fields(cmdline) {
		name, _, _ := strings.Cut(p, "=")
		for _, k := range abKeys {
			last := k[len(k)-1]
			if name == k || (last == '.' || last == '_') && strings.HasPrefix(name, k) {
				out = append(out, p)
				break
			}
		}
	}
	return out
}
