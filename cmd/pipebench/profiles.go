package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/pipebench/pipebench/internal/profile"
)

// profileFlags name the profiles of the measured window to write.
type profileFlags struct {
	cpu      string // -cpuprofile: the Go CPU profile of this process
	kernel   string // -kprofile: kernel and user stacks from perf
	perfData string // -perfdata: keep -kprofile's perf.data here
}

func (pf *profileFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&pf.cpu, "cpuprofile", "", "write the Go CPU profile of the measured window to this file (pprof, labelled with backend, writer, pipes, role)")
	fs.StringVar(&pf.kernel, "kprofile", "", "write kernel and user stacks of the measured window, recorded with perf (package "+profile.Package+"), to this file (pprof)")
	fs.StringVar(&pf.perfData, "perfdata", "", "with -kprofile: keep perf's own recording of the window (perf.data) in this file, for perf report -i FILE")
}

// files are the profile flags that name a file, and their files.
func (pf *profileFlags) files() []struct{ flag, path string } {
	return []struct{ flag, path string }{{"cpuprofile", pf.cpu}, {"kprofile", pf.kernel}, {"perfdata", pf.perfData}}
}

// profiler is the profiler of the flags' profiles, nil when none is asked.
func (pf *profileFlags) profiler() *profile.Profiler {
	p := profile.NewProfiler(pf.cpu, pf.kernel)
	p.KeepPerfData(pf.perfData)
	return p
}

// check refuses, before any work, profiles that cannot be written or
// recorded.
func (pf *profileFlags) check(count int) error {
	if pf.perfData != "" && pf.kernel == "" {
		return fmt.Errorf("-perfdata %s keeps the recording of -kprofile: use it with -kprofile FILE", pf.perfData)
	}
	if pf.cpu == "" && pf.kernel == "" {
		return nil
	}
	if count > 1 {
		return fmt.Errorf("-cpuprofile and -kprofile profile one run: do not combine them with -count %d", count)
	}
	if pf.cpu != "" && pf.cpu == pf.kernel {
		return fmt.Errorf("-cpuprofile and -kprofile name the same file %s: want two files", pf.cpu)
	}
	if pf.perfData != "" && (pf.perfData == pf.kernel || pf.perfData == pf.cpu) {
		return fmt.Errorf("-perfdata names a profile's file %s: want a file of its own", pf.perfData)
	}
	for _, f := range pf.files() {
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

// profileFlag names the flag of each kind of profile, for messages.
var profileFlag = map[profile.Kind]string{profile.GoCPU: "-cpuprofile", profile.Kernel: "-kprofile"}

// finishProfiles writes the profiles of the run, prints their top tables
// on tables and returns the exit status the profiles leave: exitOK, or
// exitFailed after a line on stderr.
func finishProfiles(p *profile.Profiler, tables, stderr io.Writer) int {
	saved, err := p.Finish()
	for _, s := range saved {
		if werr := profile.WriteSavedTop(tables, s); werr != nil && err == nil {
			err = &profile.Error{Kind: s.Kind, Err: werr}
		}
	}
	var perr *profile.Error
	if errors.As(err, &perr) {
		err = fmt.Errorf("%s: %w", profileFlag[perr.Kind], perr.Err)
	}
	if err != nil {
		fmt.Fprintf(stderr, "pipebench: %v\n", err)
		return exitFailed
	}
	if path := p.PerfDataPath(); path != "" && len(saved) > 0 {
		fmt.Fprintf(tables, "perf.data kept: %s (perf report -i %s)\n", path, path)
	}
	return exitOK
}
