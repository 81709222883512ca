// Package envinfo records the machine a result was measured on: kernel and
// its command line, CPU, cores, SMT, NUMA nodes, frequency scaling, the
// cpuidle driver and governor, the hypervisor, Go, descriptor limits, CPU vulnerability mitigations, the
// clock source and the load at the start; and the pipebench build that
// measured it (ReadBuild). Every result carries both, because only ratios
// measured on one machine in one run carry across machines.
//
// Imports: as imports_test.go at the module's root allows (the table in
// docs/contributing.md shows the rules).
package envinfo

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"sort"
	"strings"

	"golang.org/x/sys/unix"
)

// Environment is what a result was measured on.
type Environment struct {
	Kernel      string `json:"kernel"`       // uname release
	KernelBuild string `json:"kernel_build"` // uname version
	Arch        string `json:"arch"`
	CPUModel    string `json:"cpu_model"`
	// CPUSignature is /proc/cpuinfo's family and model numbers ("family
	// 26 model 2"), which tell apart hosts whose model name is the same
	// (a VM's "AMD EPYC" on two generations); empty where not exposed.
	CPUSignature string `json:"cpu_signature,omitempty"`
	Cores        int    `json:"cores"`
	GoVersion    string `json:"go_version"`
	GOMAXPROCS   int    `json:"gomaxprocs"`
	// FDSoft and FDHard are RLIMIT_NOFILE when the environment was read.
	FDSoft uint64 `json:"fd_soft_limit"`
	FDHard uint64 `json:"fd_hard_limit"`
	// Mitigations maps each CPU vulnerability to the kernel's status line.
	Mitigations map[string]string `json:"mitigations"`
	ClockSource string            `json:"clock_source"`
	// KernelCmdline is the kernel's part of /proc/cmdline (what follows
	// " -- " is init's).
	KernelCmdline string `json:"kernel_cmdline"`
	// CPUFreqDriver and CPUFreqGovernor are CPU 0's, where the kernel
	// exposes frequency scaling (virtual machines often do not).
	CPUFreqDriver   string `json:"cpufreq_driver,omitempty"`
	CPUFreqGovernor string `json:"cpufreq_governor,omitempty"`
	// CPUIdleDriver and CPUIdleGovernor are cpuidle's (intel_idle,
	// acpi_idle, haltpoll; menu, teo, haltpoll), "none" where cpuidle
	// runs no driver; empty where the kernel does not say.
	CPUIdleDriver   string `json:"cpuidle_driver,omitempty"`
	CPUIdleGovernor string `json:"cpuidle_governor,omitempty"`
	// SMT is /sys/devices/system/cpu/smt/control: on, off, forceoff,
	// notsupported or notimplemented ("on, inactive" when no sibling is
	// online).
	SMT        string `json:"smt"`
	NUMANodes  int    `json:"numa_nodes"`
	Hypervisor string `json:"hypervisor,omitempty"`
	// LoadAverage is /proc/loadavg's 1, 5 and 15 minute figures when the
	// environment was read: at the start of the work.
	LoadAverage [3]float64 `json:"load_average"`
	// Missing lists what could not be read, so that a gap is never silent.
	Missing []string `json:"missing,omitempty"`
}

// Read reads the environment of this machine.
func Read() Environment { return ReadFS(os.DirFS("/")) }

// ReadFS reads the environment with /proc and /sys taken from root (tests
// pass a fixture); uname, rlimits and the Go runtime come from this process.
func ReadFS(root fs.FS) Environment {
	e := Environment{
		Arch:       runtime.GOARCH,
		Cores:      runtime.NumCPU(),
		GoVersion:  runtime.Version(),
		GOMAXPROCS: runtime.GOMAXPROCS(0),
	}
	var u unix.Utsname
	if err := unix.Uname(&u); err == nil {
		e.Kernel = unix.ByteSliceToString(u.Release[:])
		e.KernelBuild = unix.ByteSliceToString(u.Version[:])
	} else {
		e.Missing = append(e.Missing, fmt.Sprintf("uname: %v", err))
	}
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err == nil {
		e.FDSoft, e.FDHard = lim.Cur, lim.Max
	} else {
		e.Missing = append(e.Missing, fmt.Sprintf("RLIMIT_NOFILE: %v", err))
	}
	info, err := cpuinfo(root)
	m, ok := cpuModel(info)
	switch {
	case err != nil:
		e.Missing = append(e.Missing, fmt.Sprintf("cpu model: %v", err))
	case !ok:
		e.Missing = append(e.Missing, "cpu model: no model name in /proc/cpuinfo")
	default:
		e.CPUModel = m
	}
	e.CPUSignature = cpuSignature(info)
	if b, err := fs.ReadFile(root, "sys/devices/system/clocksource/clocksource0/current_clocksource"); err == nil {
		e.ClockSource = strings.TrimSpace(string(b))
	} else {
		e.Missing = append(e.Missing, fmt.Sprintf("clock source: %v", err))
	}
	if m, err := mitigations(root); err == nil {
		e.Mitigations = m
	} else {
		e.Missing = append(e.Missing, err.Error())
	}
	e.readMachine(root)
	return e
}

// cpuinfo is /proc/cpuinfo's first value of each key: the first CPU's,
// for the keys every CPU repeats.
func cpuinfo(root fs.FS) (map[string]string, error) {
	b, err := fs.ReadFile(root, "proc/cpuinfo")
	if err != nil {
		return nil, err
	}
	info := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		k = strings.TrimSpace(k)
		if _, seen := info[k]; !seen {
			info[k] = strings.TrimSpace(v)
		}
	}
	return info, nil
}

// cpuModel is the CPU's model name, under whichever name the architecture
// gives it.
func cpuModel(info map[string]string) (string, bool) {
	for _, k := range []string{"model name", "Model", "cpu model"} {
		if m, ok := info[k]; ok {
			return m, true
		}
	}
	return "", false
}

// cpuSignature is the first CPU's "family F model M", or "" when either is
// missing (architectures other than x86 name them otherwise).
func cpuSignature(info map[string]string) string {
	family, model := info["cpu family"], info["model"]
	if family == "" || model == "" {
		return ""
	}
	return "family " + family + " model " + model
}

// CPU is the CPU's model name with its signature, when known: "AMD EPYC
// (family 26 model 2)".
func (e *Environment) CPU() string {
	if e.CPUSignature == "" {
		return e.CPUModel
	}
	return e.CPUModel + " (" + e.CPUSignature + ")"
}

func mitigations(root fs.FS) (map[string]string, error) {
	const dir = "sys/devices/system/cpu/vulnerabilities"
	ents, err := fs.ReadDir(root, dir)
	if err != nil {
		return nil, fmt.Errorf("mitigations: %w", err)
	}
	m := make(map[string]string, len(ents))
	for _, ent := range ents {
		b, err := fs.ReadFile(root, dir+"/"+ent.Name())
		if err != nil {
			return nil, fmt.Errorf("mitigations: %w", err)
		}
		m[ent.Name()] = strings.TrimSpace(string(b))
	}
	return m, nil
}

// MitigationSummary condenses Mitigations to one line: how many
// vulnerabilities the kernel mitigates, and which are vulnerable.
func (e Environment) MitigationSummary() string {
	if len(e.Mitigations) == 0 {
		return "unknown"
	}
	var mitigated, notAffected int
	var vulnerable []string
	for k, v := range e.Mitigations {
		switch {
		case strings.HasPrefix(v, "Not affected"):
			notAffected++
		case strings.HasPrefix(v, "Vulnerable"):
			vulnerable = append(vulnerable, k)
		default:
			mitigated++
		}
	}
	sort.Strings(vulnerable)
	s := fmt.Sprintf("%d mitigated, %d not affected", mitigated, notAffected)
	if len(vulnerable) > 0 {
		s += ", vulnerable: " + strings.Join(vulnerable, " ")
	}
	return s
}
