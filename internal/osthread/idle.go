package osthread

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
)

// Halts are the entries into an idle state of the CPUs a run may use, over
// its measured window: how often those CPUs stopped for want of work. Where
// a wake-up across CPUs is dear (a VM, whose halted vCPU the host must run
// again), a run's speed can follow this figure more than anything the
// program does.
//
// Every state of cpuidle counts but POLL: POLL is the kernel spinning in
// its idle loop, polling for work, so the CPU does not halt, and waking it
// is a store to memory. Every other state stops the CPU until an interrupt
// (haltpoll's halt, a VM exit; acpi_idle's and intel_idle's C-states, HLT
// or MWAIT). The count is the CPUs', every program's on them included.
type Halts struct {
	// CPUs are the CPUs counted: the process's affinity mask when the
	// window opened.
	CPUs []int `json:"cpus"`
	// Entries are the idle-state entries, POLL left out, summed over CPUs;
	// nil where they were not counted, and Missing says why.
	Entries *uint64 `json:"entries,omitempty"`
	Missing string  `json:"missing,omitempty"`
}

// CPURoot is where the kernel shows its CPUs: cpuN/cpuidle/stateK/{name,usage}.
const CPURoot = "/sys/devices/system/cpu"

// HaltMeter counts the halts of a set of CPUs from Start to Stop.
type HaltMeter struct {
	cpus    []int
	usage   []string // each counted state's usage file
	start   uint64
	missing string
}

// NewHaltMeter is a meter of the halts of the CPUs this process may run
// on: which idle states each has, read once, before a window (it
// allocates; Start and Stop read only the counts). A CPU without cpuidle
// (no such directory: another idle driver, none, or a container that
// hides it) or with only POLL leaves the count missing, as does a file
// that cannot be read (no descriptor free at an exact budget).
func NewHaltMeter() HaltMeter {
	cpus, err := AllowedCPUs()
	if err != nil {
		return HaltMeter{missing: err.Error()}
	}
	return newHaltMeter(CPURoot, cpus)
}

// newHaltMeter is NewHaltMeter for the CPUs under root.
func newHaltMeter(root string, cpus []int) HaltMeter {
	m := HaltMeter{cpus: cpus}
	for _, cpu := range cpus {
		dir := fmt.Sprintf("%s/cpu%d/cpuidle", root, cpu)
		states := 0
		for k := 0; ; k++ {
			state := fmt.Sprintf("%s/state%d", dir, k)
			var buf [64]byte
			name, err := readOnce(state+"/name", buf[:])
			if errors.Is(err, fs.ErrNotExist) {
				break
			}
			if err != nil {
				m.missing = err.Error()
				return m
			}
			states++
			if string(bytes.TrimSpace(name)) != "POLL" {
				m.usage = append(m.usage, state+"/usage")
			}
		}
		switch {
		case states == 0:
			m.missing = fmt.Sprintf("no cpuidle states for CPU %d (%s)", cpu, dir)
			return m
		case len(m.usage) == 0:
			m.missing = fmt.Sprintf("CPU %d has no idle state but POLL (%s)", cpu, dir)
			return m
		}
	}
	return m
}

// Start reads the counts when the window opens.
func (m HaltMeter) Start() HaltMeter {
	if m.missing == "" {
		m.start, m.missing = m.read()
	}
	return m
}

// read sums the counted states' usage files.
func (m *HaltMeter) read() (uint64, string) {
	if len(m.usage) == 0 {
		return 0, "no CPU to count"
	}
	var sum uint64
	for _, f := range m.usage {
		var buf [32]byte
		b, err := readOnce(f, buf[:])
		if err != nil {
			return 0, err.Error()
		}
		n, err := strconv.ParseUint(string(bytes.TrimSpace(b)), 10, 64)
		if err != nil {
			return 0, fmt.Sprintf("%s: %q is not a count", f, strings.TrimSpace(string(b)))
		}
		sum += n
	}
	return sum, ""
}

// Stop returns the halts since Start.
func (m HaltMeter) Stop() Halts {
	h := Halts{CPUs: m.cpus, Missing: m.missing}
	if h.Missing != "" {
		return h
	}
	end, missing := m.read()
	switch {
	case missing != "":
		h.Missing = missing
	case end < m.start:
		h.Missing = fmt.Sprintf("the idle-state count went back (%d at the start, %d at the end)", m.start, end)
	default:
		n := end - m.start
		h.Entries = &n
	}
	return h
}
