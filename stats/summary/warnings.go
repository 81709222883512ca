package summary

import (
	"fmt"
	"time"

	"github.com/pipebench/pipebench/pipebench"
)

// RestShare is the share of a process's CPU above which its threads other
// than the reader and writer (the Go runtime's) earn a warning: the figures
// are then not only the kernel's.
const RestShare = 0.02

// restWarnings warns, for each process, when its other threads used more
// than RestShare of its CPU; not for a Driver backend, whose reading is
// done by those threads.
func restWarnings(res *pipebench.Result) []string {
	var w []string
	check := func(who string, rest, total pipebench.Usage) {
		if total.CPU() > 0 && float64(rest.CPU()) > RestShare*float64(total.CPU()) {
			w = append(w, fmt.Sprintf("%s: threads other than the reader and writer used %.1f%% of its CPU (more than %.0f%%): see README, \"The Go runtime\"",
				who, 100*float64(rest.CPU())/float64(total.CPU()), 100*RestShare))
		}
	}
	rest, writerRest := rests(res)
	if !res.Setup.Driver {
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
