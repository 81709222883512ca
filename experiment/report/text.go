package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/pipebench/pipebench/experiment/record"
	"github.com/pipebench/pipebench/experiment/text"
	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/pipebench/summary"
)

// Text writes the output everyone knows: a setup line, one line per interval
// in epoll_pipe_bench's format, then a summary block.
type Text struct {
	W      io.Writer
	count  int
	noWait bool
	err    error
}

func (t *Text) printf(format string, a ...any) {
	if t.err == nil {
		_, t.err = fmt.Fprintf(t.W, format+"\n", a...)
	}
}

// SetupLine formats the line printed once the pipes are ready.
func SetupLine(s pipebench.Setup) string {
	how := s.Writer.String()
	if s.Reason != "" {
		how += ": " + s.Reason
	}
	return fmt.Sprintf("%d %s setup (%s, writer %s)", s.Pipes, channelNoun(s.Source), s.Backend.Name, how)
}

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
		cpus := make([]string, len(s.CPUs))
		for i, c := range s.CPUs {
			cpus[i] = strconv.Itoa(c)
		}
		spread := ""
		if s.Spread {
			spread = "spread "
		}
		fmt.Fprintf(&b, ", cpu %s%s", spread, strings.Join(cpus, ","))
	}
	return b.String()
}

// HaltsLine formats the CPUs' halts per event, "halts/evt      0.7
// (idle-state entries of CPUs 0-1, POLL left out)", or "-" and why they
// were not counted.
func HaltsLine(res *pipebench.Result, s summary.Summary) string {
	if s.HaltsPerEvent == nil {
		return fmt.Sprintf("halts/evt      -  (%s)", s.HaltsMissing)
	}
	return fmt.Sprintf("halts/evt      %s  (idle-state entries of CPUs %s, POLL left out)", text.Ratio(*s.HaltsPerEvent), cpuRanges(res.Halts.CPUs))
}

// PacingLines are an open-loop run's lines (-rate; none for a closed
// loop): the rates offered, sent and received; the tick, its tokens, the
// ticks made and what each sent; the backlog and the verdict on
// saturation (pipebench.Pacing); the writers' CPU as a share of one CPU,
// how idle the CPUs the run may use were, and every CPU's busy time per
// event.
func PacingLines(res *pipebench.Result, s summary.Summary) []string {
	p := res.Pacing
	if p == nil {
		return nil
	}
	verdict := "below saturation"
	if p.Saturated {
		verdict = "past saturation (" + p.Behind + " behind)"
	}
	perTick, writer, idle, machine := "-", "-", "idle -", "-"
	if p.Ticks > 0 {
		perTick = count4(float64(res.Tokens.Sent) / float64(p.Ticks))
	}
	if w := p.Window.Seconds(); w > 0 && !res.Tokens.SentUnknown {
		writer = fmt.Sprintf("%.1f%%", 100*res.WriterThread.CPU().Seconds()/w)
	}
	if s.IdleShare != nil {
		idle = fmt.Sprintf("CPUs %s %.1f%% idle", cpuRanges(res.Machine.CPUs), 100**s.IdleShare)
	}
	if s.MachineCPUPerEvent != nil {
		machine = text.Nanos(*s.MachineCPUPerEvent)
	}
	return []string{
		fmt.Sprintf("rate           tokens/s offered %s  sent %s  received %s", text.Whole(p.Rate), text.Whole(p.SentRate), text.Whole(p.ReceivedRate)),
		fmt.Sprintf("pacing         tick %s  tokens/tick %s  ticks %d  sent/tick %s", text.Nanos(float64(p.Tick)), count4(p.TokensPerTick), p.Ticks, perTick),
		fmt.Sprintf("backlog        at the end %d  max %d  %s", p.Backlog, p.MaxBacklog, verdict),
		fmt.Sprintf("cpu            writer %s of a CPU  %s  machine/evt %s", writer, idle, machine),
	}
}

// count4 prints a count per something with four significant digits, or
// whole from 1000 up: 0.5, 7.768, 168000.
func count4(x float64) string {
	if x >= 1000 {
		return text.Whole(x)
	}
	return text.Ratio(x)
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

// IntervalLine formats one interval as epoll_pipe_bench did:
// "171444 evts/sec 1 samples per call". Without a readiness call the line
// carries evts/sec alone, as seed 001's -f run did.
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

// RunDone prints the run's summary block.
func (t *Text) RunDone(r *summary.Run) error {
	if r.Result == nil {
		return t.err
	}
	res, s := r.Result, r.Summary
	st := res.Setup
	load := strconv.Itoa(st.InFlight) + " tokens in flight"
	switch {
	case st.Rate > 0:
		load = "open loop at " + text.Whole(st.Rate) + " tokens/s"
	case st.InFlight == 0:
		load = "unbounded tokens in flight"
	}
	t.printf("--- %s, %d %s, %s, writer %s%s, %s", st.Backend.Name, st.Pipes, channelNoun(st.Source), load, st.Writer, settings(st), window(res))
	switch e, n := s.EventsPerSec, len(res.Intervals); {
	case e.N > 1:
		t.printf("evts/sec       median %.0f  mean %.0f  sd %.0f  min %.0f  max %.0f", e.Median, e.Mean, e.StdDev, e.Min, e.Max)
		t.printf("               95%% CI of mean (within this run) %.0f..%.0f  cv %.1f%%  (%d intervals, %d warm-up left out)", e.CILow, e.CIHigh, e.CV*100, e.N, s.Warmup)
	case e.N == 1:
		t.printf("evts/sec       median %.0f  mean %.0f  sd %.0f  min %.0f  max %.0f", e.Median, e.Mean, e.StdDev, e.Min, e.Max)
		t.printf("               95%% CI of mean n/a, cv n/a  (one interval, %d warm-up left out)", s.Warmup)
	case n == 0:
		t.printf("evts/sec       no full interval")
	default:
		t.printf("evts/sec       none after warm-up: the run ended after %s (-warmup %d)", text.Plural(n, "interval"), s.Warmup)
	}
	if s.EventsPerSec.N > 0 {
		t.printf("tokens/sec     %.0f", s.TokensPerSec)
	} else {
		t.printf("tokens/sec     n/a")
	}
	if rd := s.Readers; rd != nil {
		each := make([]string, len(rd.EventsPerSec))
		for k, x := range rd.EventsPerSec {
			each[k] = text.Whole(x)
		}
		t.printf("per reader     evts/sec %s  mean %s  rsd %.1f%%  (+- %.2f%% of the mean)  total %s", strings.Join(each, " "),
			text.Whole(rd.Mean), 100*rd.RelStdDev, 100*rd.RelStdErr, text.Whole(rd.Total))
	}
	if s.Applies {
		pc := s.PerCall
		t.printf("samples/call   %s  (%d readiness calls, %d empty)", text.G6(s.SamplesPerCall), pc.Calls, pc.Empty)
		t.printf("ready/call     mean %s  p50 %s  p90 %s  p99 %s  max %d", text.Ratio(pc.Mean), text.Quantile(pc.P50), text.Quantile(pc.P90), text.Quantile(pc.P99), pc.Max)
	} else {
		t.printf("samples/call   n/a  (no readiness call)")
	}
	t.printf("per event      calls %s  wait syscalls %s  reads %s  writes %s  ctl %s  writer waits %s", text.Ratio(s.CallsPerEvent), text.Ratio(s.WaitSyscallsPerEvent),
		text.Ratio(s.ReadsPerEvent), text.Ratio(s.WritesPerEvent), text.Ratio(s.CtlPerEvent), text.Ratio(s.WriterWaitsPerEvent))
	if st.IOInRing {
		t.printf("per token      syscalls %s  cpu %s  completions/enter %s", text.Ratio(s.SyscallsPerToken), text.Nanos(s.CPUPerToken), text.Ratio(s.CompletionsPerEnter))
	} else {
		t.printf("per token      syscalls %s  cpu %s", text.Ratio(s.SyscallsPerToken), text.Nanos(s.CPUPerToken))
	}
	if ch := res.Totals.Changes; ch > 0 {
		t.printf("churn          %d changes, %s ctl calls per change", ch, text.Ratio(float64(res.Totals.Ctl)/float64(ch)))
	}
	t.printf("%-18s %9s %9s %9s %10s %10s %11s %11s %9s %9s", "cost", "cpu/evt", "user/evt", "sys/evt", "vol cs/s", "invol cs/s", "vol cs/evt", "invol cs/evt",
		"migr/evt", "runq/evt")
	for _, c := range s.Costs {
		mig := "-"
		if c.MigrationsPerEvent != nil {
			mig = text.Ratio(*c.MigrationsPerEvent)
		}
		t.printf("  %-16s %9s %9s %9s %10.1f %10.1f %11s %11s %9s %9s", c.Who, text.Nanos(c.CPUPerEvent), optNanos(c.UserPerEvent), optNanos(c.SystemPerEvent),
			c.VoluntaryPerSec, c.InvoluntaryPerSec, text.Ratio(c.VoluntaryPerEvent), text.Ratio(c.InvoluntaryPerEvent), mig, optNanos(c.RunDelayPerEvent))
	}
	t.printf("%s", HaltsLine(res, s))
	for _, l := range PacingLines(res, s) {
		t.printf("%s", l)
	}
	if l := s.Latency; l != nil {
		from := "write to read"
		if res.Pacing != nil {
			from = "scheduled send to read"
		}
		t.printf("latency        p50 %s  p90 %s  p99 %s  p99.9 %s  max %s  (%d tokens, %s)",
			text.Nanos(l.P50), text.Nanos(l.P90), text.Nanos(l.P99), text.Nanos(l.P999), text.Nanos(float64(l.Max)), l.Tokens, from)
	}
	tk := res.Tokens
	if tk.SentUnknown {
		t.printf("tokens         sent unknown (the writer died before reporting)  received %d  drained %d  lost unknown", tk.Received, tk.Drained)
	} else {
		t.printf("tokens         sent %d  received %d  drained %d  lost %d", tk.Sent, tk.Received, tk.Drained, tk.Lost)
	}
	if len(res.Writers) > 0 {
		t.printf("per writer     %s", writerTokens(res.Writers))
	}
	t.printf("setup          %d pipes in %s", st.Pipes, text.Nanos(s.SetupMillis*1e6))
	for _, w := range runWarnings(r) {
		t.printf("warning: %s", w)
	}
	return t.err
}

// Finish prints the summary across runs and the machine.
func (t *Text) Finish(d *Doc) error {
	if len(d.Runs) > 1 {
		t.printf("%s", AcrossLine(d))
		for _, w := range sampleWarnings(d.Summary.EventsPerSec, "run") {
			t.printf("warning: across runs: %s", w)
		}
	}
	lent, pinning := 0, ""
	for _, r := range d.Runs {
		if r.Result != nil {
			lent, pinning = r.Setup.LentPs, Pinning(r.Setup)
			break
		}
	}
	t.printf("machine        %s", record.MachineLine(d.Environment, lent, pinning))
	if t.err == nil {
		t.err = d.Head.WriteLines(t.W)
	}
	return t.err
}

// AcrossLine formats the summary across runs, saying which runs it leaves
// out and why: "=== 3 runs, 1 left out (run 3: interrupted): ...".
func AcrossLine(d *Doc) string {
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
	a := sum.EventsPerSec
	switch a.N {
	case 0:
		return head + ": no run to summarise"
	case 1:
		return fmt.Sprintf("%s: median evts/sec of the one run summarised %.0f", head, a.Median)
	}
	return fmt.Sprintf("%s: median evts/sec of %d run medians %.0f  mean %.0f  95%% CI %.0f..%.0f  cv %.1f%%",
		head, a.N, a.Median, a.Mean, a.CILow, a.CIHigh, a.CV*100)
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

// optNanos prints Nanos, or "-" for a figure that is not given.
func optNanos(x *float64) string {
	if x == nil {
		return "-"
	}
	return text.Nanos(*x)
}

func window(res *pipebench.Result) string {
	d := res.Elapsed.Round(time.Millisecond)
	if res.Interrupted {
		return fmt.Sprintf("interrupted after %v", d)
	}
	return fmt.Sprintf("%v measured", d)
}

// writerTokens lists each writer's token accounting: "sent 5 received 4
// drained 1 lost 0 | sent ...".
func writerTokens(ws []pipebench.WriterResult) string {
	each := make([]string, len(ws))
	for w, x := range ws {
		each[w] = fmt.Sprintf("%d: sent %d received %d drained %d lost %d", w, x.Sent, x.Received, x.Drained, x.Lost)
	}
	return strings.Join(each, " | ")
}
