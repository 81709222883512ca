package summary

import (
	"fmt"
	"time"

	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/stats"
)

// RestShare is the share of a process's CPU above which its threads other
// than the reader and writer (the Go runtime's) earn a warning: the figures
// are then not only the kernel's.
const RestShare = 0.02

// restWarnings warns, for each process, when its other threads used more
// than RestShare of its CPU; not for the reading process of a run whose
// reads were made on goroutines, whose reading is done by those threads.
func restWarnings(res *pipebench.Result) []string {
	var w []string
	check := func(who string, rest, total pipebench.Usage) {
		if total.CPU() > 0 && float64(rest.CPU()) > RestShare*float64(total.CPU()) {
			w = append(w, fmt.Sprintf("%s: threads other than the reader and writer used %.1f%% of its CPU (more than %.0f%%): see README, \"The Go runtime\"",
				who, 100*float64(rest.CPU())/float64(total.CPU()), 100*RestShare))
		}
	}
	rest, writerRest := rests(res)
	if !res.Setup.ReadsOnGoroutines {
		check("process", rest, res.Process)
	}
	if res.Setup.Writer == pipebench.WriterProcess && !res.Tokens.SentUnknown {
		check("writer process", writerRest, res.WriterProcess)
	}
	return w
}

// LateShare is how late, as a share of the interval, an interval's counts
// may be taken before the summary warns that the reporter did not get to
// run on time.
const LateShare = 0.01

// lateWarning warns when any interval's counts were taken more than
// LateShare of an interval after its boundary.
func lateWarning(res *pipebench.Result) string {
	var worst pipebench.Interval
	for _, iv := range res.Intervals {
		if iv.Late > worst.Late {
			worst = iv
		}
	}
	if worst.Index == 0 || float64(worst.Late) <= LateShare*float64(res.Setup.Interval) {
		return ""
	}
	return fmt.Sprintf("interval %d was counted %v after its boundary (more than %.0f%% of an interval): the reporter waited for a CPU", worst.Index, worst.Late.Round(time.Microsecond), 100*LateShare)
}

// HaltsAbove is the halts per event above which a run with a writer thread
// or process, free to run on more than one CPU, earns a warning: its CPUs
// then halt about once an event, and each wake-up of a halted CPU (on a VM,
// the host running it again) sets the run's speed.
const HaltsAbove = 0.5

// haltsPerEvent is the idle-state entries of the CPUs the run may use
// (Result.Halts) per event over the whole window, or nil and why not.
func haltsPerEvent(res *pipebench.Result) (*float64, string) {
	h := res.Halts
	switch {
	case h.Entries != nil && res.Totals.Events > 0:
		x := stats.PerEvent(*h.Entries, res.Totals.Events)
		return &x, ""
	case h.Entries != nil:
		return nil, "no event to count them against"
	case h.Missing != "":
		return nil, h.Missing
	}
	return nil, "not counted"
}

// haltWarning warns when a run whose reader and writer the scheduler
// placed (a writer thread or process, no -cpu, more than one CPU allowed)
// made more than HaltsAbove halts per event: where it put them, on one CPU
// or two, then sets the run's speed more than the program does.
func haltWarning(res *pipebench.Result, perEvent *float64) string {
	s := res.Setup
	placed := (s.Writer == pipebench.WriterThread || s.Writer == pipebench.WriterProcess) && len(s.CPUs) == 0 && len(res.Halts.CPUs) > 1
	if !placed || perEvent == nil || *perEvent <= HaltsAbove {
		return ""
	}
	return fmt.Sprintf("halts/evt %.3g (above %g): the run's speed is set by waking halted CPUs, and depends on whether the scheduler put the reader and writer on one CPU or two: -cpu pins them, taskset confines them",
		*perEvent, HaltsAbove)
}
