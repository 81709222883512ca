package report

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/pipebench/pipebench/experiment/text"
	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/pipebench/summary"
)

// A run's summary block, at most text.Width columns. Each figure is
// named as compare names it, its unit once in its name ("cpu ns/token"),
// the numbers plain: four significant digits, never an exponent.
//
//	--- epoll, 10000 pipes, 10 tokens in flight, writer process, 10s measured
//	evts/sec       median 158057  sd 5693 (3.6%)  min 145306  max 162299
//	samples/call   6.727  ready/call p50 9  p90 10  p99 10  max 10
//	syscalls/token 2.406  cpu ns/token 6140  idle entries/evt 0.0971
//	thread         cpu ns/evt  vol cs/evt  invol cs/evt
//	reader               3010     0.09437     0.0003923
//	writer               3080     0.09056      0.004091
//	tokens         sent 1555625  received 1555625  drained 0  lost 0
//
// then, in an open-loop run, its rate, backlog and CPU, and with
// -latency the latency's quantiles.
func runLines(r *summary.Run, verbose bool) []string {
	res, s := r.Result, r.Summary
	st := res.Setup
	load := strconv.Itoa(st.InFlight) + " tokens in flight"
	switch {
	case st.Rate > 0:
		load = "open loop at " + text.Whole(st.Rate) + " tokens/s"
	case st.InFlight == 0:
		load = "unbounded tokens in flight"
	}
	head := fmt.Sprintf("--- %s, %d %s, %s, writer %s%s, %s", st.Backend.Name, st.Pipes, channelNoun(st.Source), load, st.Writer, settings(st), window(res))
	lines := text.Wrap(head, text.Width)
	lines = append(lines, eventLines(res, s, verbose)...)
	lines = append(lines, callLines(res, s, verbose)...)
	lines = append(lines, costLines(res, s, verbose)...)
	lines = append(lines, PacingLines(res, s, verbose)...)
	lines = append(lines, latencyLines(res, s, verbose)...)
	return append(lines, tokenLines(res, s, verbose)...)
}

// eventLines are evts/sec over the intervals after warm-up, and with
// verbose its mean and confidence interval (within this run), tokens/sec;
// then each reader's evts/sec when there are several.
func eventLines(res *pipebench.Result, s summary.Summary, verbose bool) []string {
	var l []string
	add := func(label, format string, a ...any) {
		l = append(l, text.Labelled(label, fmt.Sprintf(format, a...))...)
	}
	switch e, n := s.EventsPerSec, len(res.Intervals); {
	case e.N > 1:
		add("evts/sec", "median %.0f  sd %.0f (%.1f%%)  min %.0f  max %.0f", e.Median, e.StdDev, e.CV*100, e.Min, e.Max)
		if verbose {
			add("", "mean %.0f  95%% CI of the mean %.0f..%.0f (within this run)", e.Mean, e.CILow, e.CIHigh)
			add("", "over %s, %d warm-up left out", text.Plural(e.N, "interval"), s.Warmup)
		}
	case e.N == 1:
		add("evts/sec", "median %.0f  (one interval, %d warm-up left out: no spread)", e.Median, s.Warmup)
	case n == 0:
		add("evts/sec", "no full interval")
	default:
		add("evts/sec", "none after warm-up: the run ended after %s (-warmup %d)", text.Plural(n, "interval"), s.Warmup)
	}
	if verbose {
		if s.EventsPerSec.N > 0 {
			add("tokens/sec", "%.0f", s.TokensPerSec)
		} else {
			add("tokens/sec", "n/a")
		}
	}
	if rd := s.Readers; rd != nil {
		each := make([]string, len(rd.EventsPerSec))
		for k, x := range rd.EventsPerSec {
			each[k] = text.Whole(x)
		}
		add("per reader", "evts/sec %s  mean %s  rsd %.1f%%  (+- %.2f%% of the mean)  total %s", strings.Join(each, " "),
			text.Whole(rd.Mean), 100*rd.RelStdDev, 100*rd.RelStdErr, text.Whole(rd.Total))
	}
	return l
}

// callLines are samples and ready pipes per readiness call; system calls
// and CPU per token; the CPUs' idle-state entries per event; and with
// verbose the readiness calls made, every kind of call per event, what
// the idle entries count, completions per io_uring_enter and churn.
func callLines(res *pipebench.Result, s summary.Summary, verbose bool) []string {
	var l []string
	add := func(label, format string, a ...any) {
		l = append(l, text.Labelled(label, fmt.Sprintf(format, a...))...)
	}
	pc := s.PerCall
	if s.Applies {
		add("samples/call", "%s  ready/call p50 %s  p90 %s  p99 %s  max %d", text.Ratio(s.SamplesPerCall),
			text.Quantile(pc.P50), text.Quantile(pc.P90), text.Quantile(pc.P99), pc.Max)
		if verbose {
			add("", "%d readiness calls, %d empty; ready/call mean %s", pc.Calls, pc.Empty, text.Ratio(pc.Mean))
		}
	} else {
		add("samples/call", "n/a (no readiness call)")
	}
	idle := "-"
	if s.HaltsPerEvent != nil {
		idle = text.Ratio(*s.HaltsPerEvent)
	}
	add("syscalls/token", "%s  cpu ns/token %s  idle entries/evt %s", text.Ratio(s.SyscallsPerToken), text.Ratio(s.CPUPerToken), idle)
	if !verbose {
		return l
	}
	add("per event", "calls %s  wait syscalls %s  reads %s", text.Ratio(s.CallsPerEvent), text.Ratio(s.WaitSyscallsPerEvent),
		text.Ratio(s.ReadsPerEvent))
	add("", "writes %s  ctl %s  writer waits %s", text.Ratio(s.WritesPerEvent), text.Ratio(s.CtlPerEvent), text.Ratio(s.WriterWaitsPerEvent))
	if res.Setup.IOInRing {
		add("", "completions/enter %s", text.Ratio(s.CompletionsPerEnter))
	}
	if s.HaltsPerEvent == nil {
		add("idle entries", "not counted: %s", s.HaltsMissing)
	} else {
		add("idle entries", "into the idle states of CPUs %s, POLL left out", cpuRanges(res.Halts.CPUs))
	}
	if ch := res.Totals.Changes; ch > 0 {
		add("churn", "%d changes, %s ctl calls per change", ch, text.Ratio(float64(res.Totals.Ctl)/float64(ch)))
	}
	return l
}

// costLines are the CPU time and context switches per event of the
// measured threads; with verbose, every row of the cost table (the
// processes and their other threads among them) in two tables: the time
// per event (CPU, user, system, waiting on a run queue), and the
// scheduler's counts (context switches per event and per second,
// migrations).
func costLines(res *pipebench.Result, s summary.Summary, verbose bool) []string {
	if !verbose {
		return costTable(res, s, []string{"thread", "cpu ns/evt", "vol cs/evt", "invol cs/evt"}, false, func(c summary.Cost) []string {
			return []string{text.Ratio(c.CPUPerEvent), text.Ratio(c.VoluntaryPerEvent), text.Ratio(c.InvoluntaryPerEvent)}
		})
	}
	times := costTable(res, s, []string{"cost", "cpu ns/evt", "user ns/evt", "sys ns/evt", "runq ns/evt"}, true, func(c summary.Cost) []string {
		return []string{text.Ratio(c.CPUPerEvent), opt(c.UserPerEvent), opt(c.SystemPerEvent), opt(c.RunDelayPerEvent)}
	})
	sched := costTable(res, s, []string{"scheduler", "vol cs/evt", "invol cs/evt", "migr/evt", "vol cs/s", "invol cs/s"}, true, func(c summary.Cost) []string {
		return []string{text.Ratio(c.VoluntaryPerEvent), text.Ratio(c.InvoluntaryPerEvent), opt(c.MigrationsPerEvent),
			text.Ratio(c.VoluntaryPerSec), text.Ratio(c.InvoluntaryPerSec)}
	})
	return append(times, sched...)
}

// costTable lays out the cost rows (every one, or the measured threads'),
// each named (RowName) and its cells, under head; cut into blocks of
// columns where wider than text.Width.
func costTable(res *pipebench.Result, s summary.Summary, head []string, every bool, cells func(summary.Cost) []string) []string {
	tb := &text.Table{Head: head, Right: make([]bool, len(head))}
	for i := 1; i < len(head); i++ {
		tb.Right[i] = true
	}
	// The first column as wide as a summary's labels, so that the table
	// lines up under them.
	tb.Head[0] += strings.Repeat(" ", max(text.LabelWidth-2-len(tb.Head[0]), 0))
	for _, c := range s.Costs {
		if every || measured(c.Who, res.Setup) {
			tb.Rows = append(tb.Rows, append([]string{RowName(c.Who)}, cells(c)...))
		}
	}
	var b strings.Builder
	tb.WriteWidth(&text.Printer{W: &b}, text.Width, 1)
	return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
}

// RowName is how the text names a cost row (summary.Cost.Who): a
// reader's or writer's thread by its role alone ("reader", "writer 1"),
// under the table's head "thread"; the others as they are ("process",
// "writer rest", "sq thread"). compare names its rows' figures so.
func RowName(who string) string {
	if role, ok := strings.CutSuffix(who, " thread"); ok && (strings.HasPrefix(role, "reader") || strings.HasPrefix(role, "writer")) {
		return role
	}
	return who
}

// measured says whether a cost row is a measured thread's (a reader's, a
// writer's, the backend's kernel thread's) or, where the reads were made
// on goroutines, theirs; not a process's or its other threads'.
func measured(who string, s pipebench.Setup) bool {
	return strings.HasSuffix(who, " thread") || s.ReadsOnGoroutines && who == "goroutines"
}

// PacingLines are an open-loop run's lines (-rate; none for a closed
// loop): the rates offered, sent and received; the backlog and the
// verdict on saturation (pipebench.Pacing); the writers' CPU as a share of
// one CPU, how idle the CPUs the run may use were, and every CPU's busy
// time per event; with verbose, the tick, its tokens, the ticks made and
// what each sent.
func PacingLines(res *pipebench.Result, s summary.Summary, verbose bool) []string {
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
		perTick = text.Ratio(float64(res.Tokens.Sent) / float64(p.Ticks))
	}
	if w := p.Window.Seconds(); w > 0 && !res.Tokens.SentUnknown {
		writer = fmt.Sprintf("%.1f%%", 100*res.WriterThread.CPU().Seconds()/w)
	}
	if s.IdleShare != nil {
		idle = fmt.Sprintf("CPUs %s %.1f%% idle", cpuRanges(res.Machine.CPUs), 100**s.IdleShare)
	}
	if s.MachineCPUPerEvent != nil {
		machine = text.Ratio(*s.MachineCPUPerEvent)
	}
	var l []string
	add := func(label, format string, a ...any) {
		l = append(l, text.Labelled(label, fmt.Sprintf(format, a...))...)
	}
	add("rate", "tokens/s offered %s  sent %s  received %s", text.Whole(p.Rate), text.Whole(p.SentRate), text.Whole(p.ReceivedRate))
	if verbose {
		add("pacing", "tick %s  tokens/tick %s  ticks %d  sent/tick %s", p.Tick, text.Ratio(p.TokensPerTick), p.Ticks, perTick)
	}
	add("backlog", "at the end %d  max %d  %s", p.Backlog, p.MaxBacklog, verdict)
	add("cpu", "writer %s of a CPU  %s  machine ns/evt %s", writer, idle, machine)
	return l
}

// latencyLines are the tokens' latency quantiles (-latency), in
// nanoseconds; with verbose, how many tokens and from what.
func latencyLines(res *pipebench.Result, s summary.Summary, verbose bool) []string {
	lt := s.Latency
	if lt == nil {
		return nil
	}
	ns := func(x float64) string { return strconv.FormatFloat(x, 'f', 0, 64) }
	l := text.Labelled("latency ns", fmt.Sprintf("p50 %s  p90 %s  p99 %s  p99.9 %s  max %d",
		ns(lt.P50), ns(lt.P90), ns(lt.P99), ns(lt.P999), lt.Max))
	if verbose {
		from := "write to read"
		if res.Pacing != nil {
			from = "scheduled send to read"
		}
		l = append(l, text.Labelled("", fmt.Sprintf("%d tokens, each from its %s", lt.Tokens, from))...)
	}
	return l
}

// tokenLines are the token accounting, and with verbose each writer's and
// the setup's time.
func tokenLines(res *pipebench.Result, s summary.Summary, verbose bool) []string {
	tk := res.Tokens
	acct := fmt.Sprintf("sent %d  received %d  drained %d  lost %d", tk.Sent, tk.Received, tk.Drained, tk.Lost)
	if tk.SentUnknown {
		acct = fmt.Sprintf("sent unknown (the writer died before reporting)  received %d  drained %d  lost unknown", tk.Received, tk.Drained)
	}
	l := text.Labelled("tokens", acct)
	if !verbose {
		return l
	}
	if len(res.Writers) > 0 {
		l = append(l, text.Labelled("per writer", writerTokens(res.Writers))...)
	}
	return append(l, text.Labelled("setup", fmt.Sprintf("%d pipes in %s", res.Setup.Pipes, time.Duration(s.SetupMillis*1e6).Round(100*time.Microsecond)))...)
}

// opt prints Ratio, or "-" for a figure that is not given.
func opt(x *float64) string {
	if x == nil {
		return "-"
	}
	return text.Ratio(*x)
}

func window(res *pipebench.Result) string {
	d := res.Elapsed.Round(time.Millisecond)
	if res.Interrupted {
		return fmt.Sprintf("interrupted after %v", d)
	}
	return fmt.Sprintf("%v measured", d)
}

// writerTokens lists each writer's token accounting: "0: sent 5 received
// 4 drained 1 lost 0 | 1: sent ...".
func writerTokens(ws []pipebench.WriterResult) string {
	each := make([]string, len(ws))
	for w, x := range ws {
		each[w] = fmt.Sprintf("%d: sent %d received %d drained %d lost %d", w, x.Sent, x.Received, x.Drained, x.Lost)
	}
	return strings.Join(each, " | ")
}
