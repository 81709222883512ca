package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/pipebench/pipebench/stats/profile"
	"github.com/pipebench/pipebench/stats/report"
)

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

// profileFlag names the flag of each kind of profile, for messages.
var profileFlag = map[profile.Kind]string{profile.GoCPU: "-cpuprofile", profile.Kernel: "-kprofile"}

// finishProfiles writes the profiles of the run, prints their top tables
// on tables and returns the exit status the profiles leave: exitOK, or
// exitFailed after a line on stderr.
func finishProfiles(p *profile.Profiler, tables, stderr io.Writer) int {
	saved, err := p.Finish()
	for _, s := range saved {
		if werr := report.WriteSavedTop(tables, s); werr != nil && err == nil {
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
	return exitOK
}
