package profile

import (
	"bytes"
	"fmt"
	"os"
	runtimepprof "runtime/pprof"
	"time"

	pprof "github.com/google/pprof/profile"
)

// Kind says which profile of a run's window: the Go CPU profile of the
// reading process, or kernel and user stacks recorded with perf.
type Kind int

const (
	// GoCPU is runtime/pprof's CPU profile of this process, its samples
	// labelled with the run's Observers.Labels and each goroutine's role.
	GoCPU Kind = iota
	// Kernel is kernel and user stacks of the reading and writer processes,
	// recorded with perf (Recorder) and converted (Parse).
	Kernel
)

func (k Kind) String() string {
	if k == Kernel {
		return "kernel profile"
	}
	return "Go CPU profile"
}

// Error is a profile that could not be started, stopped or written; Kind
// says which, so that a caller can name it its own way (the command: by its
// flag).
type Error struct {
	Kind Kind
	Err  error
}

func (e *Error) Error() string { return e.Kind.String() + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Saved is a profile written to its file.
type Saved struct {
	Kind    Kind
	Path    string
	Profile *pprof.Profile
}

// Profiler records the profiles of one run's measured window: Begin starts
// them when the window opens, End stops them when it closes, then Finish
// writes them. It knows nothing of the run: its caller says which
// processes to record and what its threads are (Targets), and ends the run
// when Stop's channel closes.
type Profiler struct {
	cpuPath, kernelPath string
	perfDataPath        string // where to keep perf's recording, if anywhere

	targets    Targets
	started    bool
	start, end time.Time
	cpu        bytes.Buffer
	cpuOn      bool
	rec        *Recorder
	err        error         // the first failure to start or stop
	abort      chan struct{} // closed on a failure to start: the run ends
	done       chan struct{} // closed by Finish
}

// NewProfiler returns a profiler that writes the Go CPU profile to cpuPath
// and the kernel profile to kernelPath, each when not empty; nil when both
// are. A nil profiler does nothing.
func NewProfiler(cpuPath, kernelPath string) *Profiler {
	if cpuPath == "" && kernelPath == "" {
		return nil
	}
	return &Profiler{cpuPath: cpuPath, kernelPath: kernelPath, abort: make(chan struct{}), done: make(chan struct{})}
}

// KeepPerfData makes Finish keep perf's own recording of the window at
// path (a perf.data file, for perf report -i path) beside the kernel
// profile; by default it is removed. It does nothing without a kernel
// profile.
func (p *Profiler) KeepPerfData(path string) {
	if p != nil {
		p.perfDataPath = path
	}
}

// PerfDataPath is where Finish keeps perf's recording; empty when it does
// not.
func (p *Profiler) PerfDataPath() string {
	if p == nil || p.kernelPath == "" {
		return ""
	}
	return p.perfDataPath
}

// Targets are what a window's kernel profile records: the processes, and
// the names its samples are labelled with (Options.Roles, Processes).
type Targets struct {
	PIDs []int
	// Roles names threads by thread id ("reader", "writer"), Processes
	// processes by process id ("main", "writer").
	Roles, Processes map[int]string
}

// GoCPU says whether p records the Go CPU profile, whose samples carry the
// labels of the goroutines that took them (pprof.Do).
func (p *Profiler) GoCPU() bool { return p != nil && p.cpuPath != "" }

// Stop returns a channel that closes when stop does, or when a profile
// cannot start, so that the run it ends does not measure unprofiled: the
// run's stop channel.
func (p *Profiler) Stop(stop <-chan struct{}) <-chan struct{} {
	if p == nil {
		return stop
	}
	both := make(chan struct{})
	go func() {
		select {
		case <-stop:
		case <-p.abort:
		case <-p.done:
			return
		}
		close(both)
	}()
	return both
}

// Begin starts the profiles, as the window opens: the kernel profile of
// t's processes and the Go CPU profile of this one. A profile that cannot
// start closes Stop's channel and is Finish's error.
func (p *Profiler) Begin(t Targets) {
	if p == nil {
		return
	}
	p.targets, p.started = t, true
	if p.kernelPath != "" {
		rec, err := Start(t.PIDs)
		if err != nil {
			p.fail(&Error{Kernel, err})
			return
		}
		p.rec = rec
	}
	if p.cpuPath != "" {
		if err := runtimepprof.StartCPUProfile(&p.cpu); err != nil {
			p.fail(&Error{GoCPU, err})
			return
		}
		p.cpuOn = true
	}
	p.start = time.Now()
}

func (p *Profiler) fail(err error) {
	if p.err == nil {
		p.err = err
		close(p.abort)
	}
}

// End stops the profiles, as the window closes.
func (p *Profiler) End() {
	if p == nil {
		return
	}
	p.end = time.Now()
	if p.cpuOn {
		runtimepprof.StopCPUProfile()
	}
	if p.rec != nil {
		if err := p.rec.Stop(); err != nil && p.err == nil {
			p.err = &Error{Kernel, err}
		}
	}
}

// Finish writes the profiles, the kernel's first, and returns those it
// wrote. It is called once the run is over, whatever its outcome; the
// error, an *Error, is the first profile that could not be recorded or
// written (the profiles before it are saved).
func (p *Profiler) Finish() ([]Saved, error) {
	if p == nil {
		return nil, nil
	}
	close(p.done)
	if p.rec != nil {
		defer p.rec.Close()
	}
	if p.err != nil {
		return nil, p.err
	}
	if !p.started {
		return nil, nil // the run failed before its window opened
	}
	var saved []Saved
	if p.kernelPath != "" {
		prof, err := p.finishKernel()
		if err != nil {
			return saved, &Error{Kernel, err}
		}
		saved = append(saved, Saved{Kernel, p.kernelPath, prof})
	}
	if p.cpuPath != "" {
		prof, err := p.finishCPU()
		if err != nil {
			return saved, &Error{GoCPU, err}
		}
		saved = append(saved, Saved{GoCPU, p.cpuPath, prof})
	}
	return saved, nil
}

func (p *Profiler) finishKernel() (*pprof.Profile, error) {
	prof, err := p.rec.Profile(Options{Roles: p.targets.Roles, Processes: p.targets.Processes})
	if err != nil {
		return nil, err
	}
	if p.perfDataPath != "" {
		if err := p.rec.Keep(p.perfDataPath); err != nil {
			return nil, err
		}
	}
	prof.TimeNanos, prof.DurationNanos = p.start.UnixNano(), p.end.Sub(p.start).Nanoseconds()
	return prof, writeProfile(p.kernelPath, prof)
}

func (p *Profiler) finishCPU() (*pprof.Profile, error) {
	data := p.cpu.Bytes()
	if err := os.WriteFile(p.cpuPath, data, 0o644); err != nil {
		return nil, err
	}
	prof, err := pprof.ParseData(data)
	if err != nil {
		return nil, fmt.Errorf("read back the Go CPU profile: %w", err)
	}
	return prof, nil
}

func writeProfile(path string, prof *pprof.Profile) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := prof.Write(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}
