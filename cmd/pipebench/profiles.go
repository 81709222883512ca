package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime/pprof"
	"strconv"
	"time"

	pprofile "github.com/google/pprof/profile"

	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/stats/profile"
)

// topRows is how many symbols the table after a profiled run shows, as many
// as the seeds' oprofile tables.
const topRows = 20

// profileFlags name the profiles of the measured window to write.
type profileFlags struct {
	cpu    string // -cpuprofile: the Go CPU profile of this process
	kernel string // -kprofile: kernel and user stacks from perf
}

func (pf *profileFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&pf.cpu, "cpuprofile", "", "write the Go CPU profile of the measured window to this file (pprof, labelled with backend, writer, pipes, role)")
	fs.StringVar(&pf.kernel, "kprofile", "", "write kernel and user stacks of the measured window, recorded with perf (package "+profile.Package+"), to this file (pprof)")
}

// check refuses, before any work, profiles that cannot be written or
// recorded.
func (pf *profileFlags) check(count int) error {
	if pf.cpu == "" && pf.kernel == "" {
		return nil
	}
	if count > 1 {
		return fmt.Errorf("-cpuprofile and -kprofile profile one run: do not combine them with -count %d", count)
	}
	if pf.cpu != "" && pf.cpu == pf.kernel {
		return fmt.Errorf("-cpuprofile and -kprofile name the same file %s: want two files", pf.cpu)
	}
	for _, f := range []struct{ flag, path string }{{"cpuprofile", pf.cpu}, {"kprofile", pf.kernel}} {
		if f.path == "" {
			continue
		}
		if err := checkWritable(f.path); err != nil {
			return fmt.Errorf("-%s %s: cannot write there: %w", f.flag, f.path, err)
		}
	}
	if pf.kernel != "" {
		if err := profile.Check(); err != nil {
			return fmt.Errorf("-kprofile: %w", err)
		}
	}
	return nil
}

// checkWritable opens path for writing without truncating it, and removes
// it again if it did not exist.
func checkWritable(path string) error {
	_, statErr := os.Stat(path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return errors.Unwrap(err) // the path is named already
	}
	f.Close()
	if errors.Is(statErr, fs.ErrNotExist) {
		os.Remove(path)
	}
	return nil
}

// profiler records the profiles of one run: it starts them when the window
// opens (OnSetup) and stops them when it closes (OnDone).
type profiler struct {
	flags  profileFlags
	tables io.Writer // where the top tables go

	setup      pipebench.Setup
	started    bool
	start, end time.Time
	cpu        bytes.Buffer
	cpuOn      bool
	rec        *profile.Recorder
	err        error         // the first failure to start or stop
	abort      chan struct{} // closed on a failure to start: the run ends
	done       chan struct{} // closed by finish
}

// profiler returns nil when no profile is asked for; a nil profiler does
// nothing.
func (pf *profileFlags) profiler(tables io.Writer) *profiler {
	if pf.cpu == "" && pf.kernel == "" {
		return nil
	}
	return &profiler{flags: *pf, tables: tables, abort: make(chan struct{}), done: make(chan struct{})}
}

// hook makes cfg's run start and stop the profiles, label its goroutines,
// and end early if a profile cannot start.
func (p *profiler) hook(cfg *pipebench.Config) {
	if p == nil {
		return
	}
	if p.flags.cpu != "" {
		cfg.Labels = []string{"backend", cfg.BackendName(), "pipes", strconv.Itoa(cfg.Pipes), "inflight", strconv.Itoa(cfg.InFlight)}
	}
	userStop, stop := cfg.Stop, make(chan struct{})
	go func() {
		select {
		case <-userStop:
		case <-p.abort:
		case <-p.done:
			return
		}
		close(stop)
	}()
	cfg.Stop = stop
	onSetup, onDone := cfg.OnSetup, cfg.OnDone
	cfg.OnSetup = func(s pipebench.Setup) {
		if onSetup != nil {
			onSetup(s)
		}
		p.begin(s)
	}
	cfg.OnDone = func() {
		p.stop()
		if onDone != nil {
			onDone()
		}
	}
}

func (p *profiler) begin(s pipebench.Setup) {
	p.setup, p.started = s, true
	if p.flags.kernel != "" {
		pids := []int{s.PID}
		if s.WriterPID != s.PID {
			pids = append(pids, s.WriterPID)
		}
		rec, err := profile.Start(pids)
		if err != nil {
			p.fail(fmt.Errorf("-kprofile: %w", err))
			return
		}
		p.rec = rec
	}
	if p.flags.cpu != "" {
		if err := pprof.StartCPUProfile(&p.cpu); err != nil {
			p.fail(fmt.Errorf("-cpuprofile: %w", err))
			return
		}
		p.cpuOn = true
	}
	p.start = time.Now()
}

func (p *profiler) fail(err error) {
	if p.err == nil {
		p.err = err
		close(p.abort)
	}
}

func (p *profiler) stop() {
	p.end = time.Now()
	if p.cpuOn {
		pprof.StopCPUProfile()
	}
	if p.rec != nil {
		if err := p.rec.Stop(); err != nil && p.err == nil {
			p.err = fmt.Errorf("-kprofile: %w", err)
		}
	}
}

// finish writes the profiles and prints their top tables. It is called
// once the run is over, whatever its outcome.
func (p *profiler) finish() error {
	if p == nil {
		return nil
	}
	close(p.done)
	if p.rec != nil {
		defer p.rec.Close()
	}
	if p.err != nil {
		return p.err
	}
	if !p.started {
		return nil // the run failed before its window opened
	}
	if p.flags.kernel != "" {
		if err := p.finishKernel(); err != nil {
			return fmt.Errorf("-kprofile: %w", err)
		}
	}
	if p.flags.cpu != "" {
		if err := p.finishCPU(); err != nil {
			return fmt.Errorf("-cpuprofile: %w", err)
		}
	}
	return nil
}

func (p *profiler) finishKernel() error {
	s := p.setup
	roles := map[int]string{s.ReaderTID: pipebench.RoleReader}
	procs := map[int]string{s.PID: "main"}
	if s.WriterTID == s.ReaderTID {
		roles[s.ReaderTID] = pipebench.RoleSelf
	} else if s.WriterTID != 0 {
		roles[s.WriterTID] = pipebench.RoleWriter
	}
	if s.WriterPID != s.PID {
		procs[s.WriterPID] = "writer"
	}
	prof, err := p.rec.Profile(profile.Options{Roles: roles, Processes: procs})
	if err != nil {
		return err
	}
	prof.TimeNanos, prof.DurationNanos = p.start.UnixNano(), p.end.Sub(p.start).Nanoseconds()
	if err := writeProfile(p.flags.kernel, prof); err != nil {
		return err
	}
	title := fmt.Sprintf("kernel and user stacks (perf, %s): %s", describePeriod(prof), p.flags.kernel)
	return printTop(p.tables, title, prof, topRows, "")
}

func (p *profiler) finishCPU() error {
	data := p.cpu.Bytes()
	if err := os.WriteFile(p.flags.cpu, data, 0o644); err != nil {
		return err
	}
	prof, err := pprofile.ParseData(data)
	if err != nil {
		return fmt.Errorf("read back the Go CPU profile: %w", err)
	}
	title := fmt.Sprintf("Go CPU profile (this process, %s): %s", describePeriod(prof), p.flags.cpu)
	return printTop(p.tables, title, prof, topRows, "")
}

func writeProfile(path string, prof *pprofile.Profile) error {
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
