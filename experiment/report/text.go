package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/pipebench/pipebench/experiment/record"
	"github.com/pipebench/pipebench/experiment/text"
	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/pipebench/summary"
)

// Text writes the output everyone knows: a setup line, one line per
// interval in epoll_pipe_bench's format, then a summary block of at most
// 80 columns (runtext.go). Verbose adds every figure the JSON record has
// beyond the default summary: the interval's confidence interval, the
// calls per event, the whole cost table (every thread and process,
// context switches per second), the pacing, the setup's time, and more of
// the machine (GOMAXPROCS, the descriptor limits, where the threads ran).
type Text struct {
	W       io.Writer
	Verbose bool
	count   int
	noWait  bool
	err     error
}

func (t *Text) printf(format string, a ...any) {
	if t.err == nil {
		_, t.err = fmt.Fprintf(t.W, format+"\n", a...)
	}
}

// lines prints each of ls on a line of its own.
func (t *Text) lines(ls []string) {
	for _, l := range ls {
		t.printf("%s", l)
	}
}

// SetupLine formats the line printed once the pipes are ready, as
// epoll_pipe_bench's began, with the backend and the writer and why auto
// chose it: "10000 pipes setup (epoll, writer process: thread needs 20010
// fds, limit 20000)"; wrapped where longer than text.Width.
func SetupLine(s pipebench.Setup) string {
	how := s.Writer.String()
	if s.Reason != "" {
		how += ": " + shortReason.Replace(s.Reason)
	}
	line := fmt.Sprintf("%d %s setup (%s, writer %s)", s.Pipes, channelNoun(s.Source), s.Backend.Name, how)
	return strings.Join(text.Fit(line, text.Width), "\n")
}

// shortReason words the harness's reason for auto's writer
// (pipebench.Setup.Reason, "thread mode needs 20010 descriptors, limit
// 20000") in fewer columns: "thread needs 20010 fds, limit 20000".
var shortReason = strings.NewReplacer(" mode needs ", " needs ", " descriptors, limit ", " fds, limit ")

func channelNoun(s pipebench.Source) string {
	switch s {
	case pipebench.SourceUnix:
		return "unix socketpairs"
	case pipebench.SourceTCP:
		return "tcp connections"
	case pipebench.SourceEventfd:
		return "eventfds"
	}
	return "pipes"
}

// settings lists the experiment settings of a run, for its summary header.
func settings(s pipebench.Setup) string {
	var b strings.Builder
	if s.Readers > 1 || s.Writers > 1 {
		fmt.Fprintf(&b, ", %s, %s", text.Plural(s.Readers, "reader"), text.Plural(s.Writers, "writer"))
	}
	if s.Share {
		b.WriteString(" on one shared instance")
	}
	if s.MaxEvents > 0 {
		fmt.Fprintf(&b, ", maxevents %d", s.MaxEvents)
	}
	if s.Nest > 0 {
		fmt.Fprintf(&b, ", nest %d", s.Nest)
	}
	if s.Churn > 0 {
		fmt.Fprintf(&b, ", churn %d", s.Churn)
	}
	if s.Delay > 0 {
		fmt.Fprintf(&b, ", delay %v", s.Delay)
	}
	if len(s.CPUs) > 0 {
		fmt.Fprintf(&b, ", %s", Pinning(s))
	}
	return b.String()
}

// IntervalLine formats one interval as epoll_pipe_bench did:
// "171444 evts/sec 1 samples per call". Without a readiness call the line
// carries evts/sec alone, as epoll_pipe_bench's -f run did.
func IntervalLine(iv pipebench.Interval, noWait bool) string {
	if noWait {
		return fmt.Sprintf("%.0f evts/sec", iv.EventsPerSec)
	}
	return fmt.Sprintf("%.0f evts/sec %s samples per call", iv.EventsPerSec, text.G6(iv.SamplesPerCall))
}

// Start notes how many runs will follow.
func (t *Text) Start(d *Doc) error {
	t.count = d.Config.Count
	return nil
}

// Setup prints the setup line (after a run header when there are several).
func (t *Text) Setup(run int, s pipebench.Setup) error {
	t.noWait = s.NoReadinessCalls
	if t.count > 1 {
		t.printf("=== run %d of %d", run, t.count)
	}
	t.printf("%s", SetupLine(s))
	return t.err
}

// Interval prints one interval line.
func (t *Text) Interval(run int, iv pipebench.Interval) error {
	t.printf("%s", IntervalLine(iv, t.noWait))
	return t.err
}

// RunDone prints the run's summary block and its warnings.
func (t *Text) RunDone(r *summary.Run) error {
	if r.Result == nil {
		return t.err
	}
	t.lines(runLines(r, t.Verbose))
	for _, w := range runWarnings(r) {
		t.printf("warning: %s", w)
	}
	return t.err
}

// Finish prints the summary across runs, the machine, the command and
// the build.
func (t *Text) Finish(d *Doc) error {
	if len(d.Runs) > 1 {
		t.lines(AcrossLines(d, t.Verbose))
		for _, w := range sampleWarnings(d.Summary.EventsPerSec, "run") {
			t.printf("warning: %s", w)
		}
	}
	var more []string
	for _, r := range d.Runs {
		if r.Result != nil {
			procs := fmt.Sprintf("GOMAXPROCS %d", d.Environment.GOMAXPROCS)
			if r.Setup.LentPs > 0 {
				procs += fmt.Sprintf(" (+%d for the measured threads)", r.Setup.LentPs)
			}
			more = []string{procs, Pinning(r.Setup)}
			break
		}
	}
	t.lines(record.MachineLines(d.Environment, t.Verbose, more...))
	if t.err == nil {
		t.err = d.Head.WriteLines(t.W)
	}
	return t.err
}

// AcrossLines are the summary across runs, saying which runs it leaves
// out and why: "=== 3 runs, 1 left out (run 3: interrupted)", then the
// median of the runs' medians with its confidence interval.
func AcrossLines(d *Doc, verbose bool) []string {
	sum := d.Summary
	var out []string
	for _, r := range d.Runs {
		if r.LeftOut != "" {
			out = append(out, fmt.Sprintf("run %d: %s", r.Index, r.LeftOut))
		}
	}
	head := fmt.Sprintf("=== %d runs, none left out", sum.Runs)
	if len(out) > 0 {
		head = fmt.Sprintf("=== %d runs, %d left out (%s)", sum.Runs, sum.LeftOut, strings.Join(out, ", "))
	}
	lines := text.Wrap(head, text.Width)
	a := sum.EventsPerSec
	var of string
	switch a.N {
	case 0:
		of = "no run to summarise"
	case 1:
		of = fmt.Sprintf("%.0f, the one run summarised", a.Median)
	default:
		of = fmt.Sprintf("median of %d run medians %.0f  95%% CI %.0f..%.0f  cv %.1f%%", a.N, a.Median, a.CILow, a.CIHigh, a.CV*100)
		if verbose {
			of += fmt.Sprintf("  mean %.0f  sd %.0f  min %.0f  max %.0f", a.Mean, a.StdDev, a.Min, a.Max)
		}
	}
	return append(lines, text.Labelled("evts/sec", of)...)
}

// Pinning says where a run's measured threads ran: "unpinned" (the
// scheduler placed them), "pinned 0,1" (-cpu, one CPU per thread, readers
// then writers, or one for all) or "pinned spread 0,1,0,1".
func Pinning(s pipebench.Setup) string {
	if len(s.CPUs) == 0 {
		return "unpinned"
	}
	cpus := make([]string, len(s.CPUs))
	for i, c := range s.CPUs {
		cpus[i] = strconv.Itoa(c)
	}
	if s.Spread {
		return "pinned spread " + strings.Join(cpus, ",")
	}
	return "pinned " + strings.Join(cpus, ",")
}

// cpuRanges lists CPUs as the kernel's cpulist does: "0-3,6".
func cpuRanges(cpus []int) string {
	var parts []string
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", cpus[i], cpus[j]))
		} else {
			parts = append(parts, strconv.Itoa(cpus[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}
