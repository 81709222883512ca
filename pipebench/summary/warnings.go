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
	if !placed(res) || perEvent == nil || *perEvent <= HaltsAbove {
		return ""
	}
	return fmt.Sprintf("halts/evt %.3g (above %g): the run's speed is set by waking halted CPUs, and depends on whether the scheduler put the reader and writer on one CPU or two: -cpu pins them, taskset confines them",
		*perEvent, HaltsAbove)
}

// placed says whether the scheduler chose the CPUs of the run's reader and
// writer: a writer thread or process, no -cpu, more than one CPU allowed.
func placed(res *pipebench.Result) bool {
	s := res.Setup
	return (s.Writer == pipebench.WriterThread || s.Writer == pipebench.WriterProcess) && len(s.CPUs) == 0 && len(res.Halts.CPUs) > 1
}

// sysmonWarning says, of every run whose reader and writer the scheduler
// placed on CPUs that halt when idle, that its figures are those of a
// process with the Go runtime's sysmon thread in it, which wakes about
// every 10 ms. Where idle CPUs halt, such a thread moves the reader and the
// writer onto one CPU more often, which spares the run wake-ups of halted
// CPUs: a C program with such a thread ran as fast as pipebench, 3-9% faster
// than without it, on the Intel Xeon VM (docs/speed.md, "Wake-ups across
// CPUs"). No Go program can be without sysmon; the comparison is a C
// program with the thread (the yardstick's -tick), or runs pinned with
// -cpu.
func sysmonWarning(res *pipebench.Result) string {
	h := res.Halts.Entries
	if !placed(res) || h == nil || *h == 0 {
		return ""
	}
	return "the Go runtime's sysmon thread wakes about every 10 ms; where idle CPUs halt, as here, it moves the reader and writer onto one CPU more often: compare with a C program that has such a thread (the yardstick's -tick 10ms), or pin them with -cpu"
}
