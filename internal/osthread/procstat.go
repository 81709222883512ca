package osthread

import (
	"bytes"
	"fmt"
	"strconv"
	"time"
)

// CPUTime is what one CPU's time (or every CPU's together) went to, from
// /proc/stat: the kernel's counts of USER_HZ ticks, in nanoseconds.
type CPUTime struct {
	// CPU is the CPU's number; -1 for the machine's total.
	CPU     int           `json:"cpu"`
	User    time.Duration `json:"user_ns"` // guest time included, as the kernel counts it
	Nice    time.Duration `json:"nice_ns"`
	System  time.Duration `json:"system_ns"`
	Idle    time.Duration `json:"idle_ns"`
	IOWait  time.Duration `json:"iowait_ns"`
	IRQ     time.Duration `json:"irq_ns"`
	SoftIRQ time.Duration `json:"softirq_ns"`
	// Steal is time the hypervisor ran something else while this VM's
	// CPU wanted to run.
	Steal time.Duration `json:"steal_ns"`
}

// Busy is the time spent running anything: user, nice, system, irq and
// softirq (not idle, iowait or steal).
func (t CPUTime) Busy() time.Duration { return t.User + t.Nice + t.System + t.IRQ + t.SoftIRQ }

// Add is t + u (keeping t's CPU).
func (t CPUTime) Add(u CPUTime) CPUTime {
	return CPUTime{t.CPU, t.User + u.User, t.Nice + u.Nice, t.System + u.System, t.Idle + u.Idle, t.IOWait + u.IOWait,
		t.IRQ + u.IRQ, t.SoftIRQ + u.SoftIRQ, t.Steal + u.Steal}
}

// Sub is t - u (keeping t's CPU).
func (t CPUTime) Sub(u CPUTime) CPUTime {
	return CPUTime{t.CPU, t.User - u.User, t.Nice - u.Nice, t.System - u.System, t.Idle - u.Idle, t.IOWait - u.IOWait,
		t.IRQ - u.IRQ, t.SoftIRQ - u.SoftIRQ, t.Steal - u.Steal}
}

// MachineCPU is the machine's CPU time over a run's measured window, every
// program's: what the run's own processes did not use of it, others did.
type MachineCPU struct {
	// CPUs are the CPUs the run may use: the process's affinity mask when
	// the window opened.
	CPUs []int `json:"cpus"`
	// Total is every CPU's time together; PerCPU each online CPU's.
	Total  CPUTime   `json:"total"`
	PerCPU []CPUTime `json:"per_cpu"`
	// Missing says why there is no count (no /proc/stat, or one that
	// cannot be read); Total and PerCPU are then zero.
	Missing string `json:"missing,omitempty"`
}

// Of is the time of the CPUs cpus together, those not in PerCPU left out.
func (m MachineCPU) Of(cpus []int) CPUTime {
	t := CPUTime{CPU: -1}
	for _, c := range m.PerCPU {
		for _, want := range cpus {
			if c.CPU == want {
				t = t.Add(c)
			}
		}
	}
	return t
}

// Allowed is the time of the CPUs the run may use, together.
func (m MachineCPU) Allowed() CPUTime { return m.Of(m.CPUs) }

// ProcStat is where the kernel counts its CPUs' time.
const ProcStat = "/proc/stat"

// userHZ is the tick /proc/stat counts in: USER_HZ, 100 on every
// architecture Linux runs Go on (the kernel converts its own tick to it).
const userHZ = 100

// StatMeter measures the machine's CPU time from Start to Stop.
type StatMeter struct {
	path    string
	cpus    []int
	buf     []byte
	start   []CPUTime
	missing string
}

// NewStatMeter is a meter of /proc/stat for a run that may use the CPUs
// of this process's affinity mask. It allocates what Start and Stop read
// into; they allocate nothing more than the result.
func NewStatMeter() StatMeter {
	cpus, err := AllowedCPUs()
	if err != nil {
		return StatMeter{missing: err.Error()}
	}
	return newStatMeter(ProcStat, cpus)
}

// newStatMeter is NewStatMeter of the file at path.
func newStatMeter(path string, cpus []int) StatMeter {
	m := StatMeter{path: path, cpus: cpus, buf: make([]byte, 64<<10)}
	first, err := m.read(nil)
	if err != nil {
		m.missing = err.Error()
		return m
	}
	m.start = make([]CPUTime, 0, len(first))
	return m
}

// read parses the file's cpu lines into into[:0].
func (m *StatMeter) read(into []CPUTime) ([]CPUTime, error) {
	b, err := readOnce(m.path, m.buf)
	if err != nil {
		return nil, err
	}
	return ParseStat(b, into[:0])
}

// Start reads the counts when the window opens.
func (m StatMeter) Start() StatMeter {
	if m.missing == "" {
		var err error
		if m.start, err = m.read(m.start); err != nil {
			m.missing = err.Error()
		}
	}
	return m
}

// Stop is the machine's CPU time since Start.
func (m StatMeter) Stop() MachineCPU {
	out := MachineCPU{CPUs: m.cpus, Missing: m.missing}
	if out.Missing != "" {
		return out
	}
	end, err := m.read(nil)
	if err != nil {
		out.Missing = err.Error()
		return out
	}
	for _, e := range end {
		for _, s := range m.start {
			if s.CPU != e.CPU {
				continue
			}
			if d := e.Sub(s); d.CPU < 0 {
				out.Total = d
			} else {
				out.PerCPU = append(out.PerCPU, d)
			}
		}
	}
	return out
}

// ParseStat appends the cpu lines of /proc/stat's text b to into: the
// total first (CPU -1), then each CPU's.
func ParseStat(b []byte, into []CPUTime) ([]CPUTime, error) {
	for line := range bytes.Lines(b) {
		if !bytes.HasPrefix(line, []byte("cpu")) {
			if len(into) > 0 {
				break // the cpu lines come first, together
			}
			continue
		}
		f := bytes.Fields(line)
		if len(f) < 9 {
			return into, fmt.Errorf("%s: %q: want a CPU and 8 counts or more", ProcStat, bytes.TrimSpace(line))
		}
		t := CPUTime{CPU: -1}
		if name := f[0][3:]; len(name) > 0 {
			n, err := strconv.Atoi(string(name))
			if err != nil {
				return into, fmt.Errorf("%s: %q is not a CPU", ProcStat, f[0])
			}
			t.CPU = n
		}
		var v [8]time.Duration
		for i := range v {
			n, err := strconv.ParseUint(string(f[i+1]), 10, 63)
			if err != nil {
				return into, fmt.Errorf("%s: %s: %q is not a count", ProcStat, f[0], f[i+1])
			}
			v[i] = time.Duration(n) * (time.Second / userHZ)
		}
		t.User, t.Nice, t.System, t.Idle, t.IOWait, t.IRQ, t.SoftIRQ, t.Steal = v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]
		into = append(into, t)
	}
	if len(into) == 0 {
		return into, fmt.Errorf("%s: no cpu line", ProcStat)
	}
	return into, nil
}
