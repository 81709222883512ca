package report

import (
	"fmt"
	"time"

	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/stats"
)

// NoisyCV is the coefficient of variation above which a run is flagged as
// noisy.
const NoisyCV = 0.05

// Summary is what a run comes to, computed from its result alone.
//
// The warm-up rule, the same in every format: the first Warmup intervals
// are left out of the evts/sec and tokens/sec figures, always; a run that
// ended with Warmup intervals or fewer has none to summarise (N = 0, and a
// warning says so). The ratios, the distributions and the costs are over the
// whole window (Totals, PerCall, Latency, CPU usage), warm-up included.
type Summary struct {
	// EventsPerSec summarises evts/sec over the intervals after warm-up.
	EventsPerSec stats.Summary `json:"evts_per_sec"`
	// Warmup is how many leading intervals were left out.
	Warmup int `json:"warmup_intervals"`
	// TokensPerSec is tokens received per second over the same intervals.
	TokensPerSec float64 `json:"tokens_per_sec"`
	// SamplesPerCall is events per non-empty readiness call over the whole
	// window; Applies is false for mechanisms without a readiness call.
	SamplesPerCall float64 `json:"samples_per_call"`
	Applies        bool    `json:"samples_per_call_applies"`
	// PerCall is the distribution of ready descriptors per readiness call.
	PerCall PerCall `json:"ready_per_call"`
	// Per event, over the whole window: readiness calls; the readiness
	// mechanism's system calls (Counts.WaitSyscalls); read(2) and write(2)
	// calls of the reader and the writer together, a writer's writes that
	// found a pipe full included; interest changes; a writer's ppoll(2)
	// calls waiting for credits.
	CallsPerEvent        float64 `json:"calls_per_event"`
	WaitSyscallsPerEvent float64 `json:"wait_syscalls_per_event"`
	ReadsPerEvent        float64 `json:"reads_per_event"`
	WritesPerEvent       float64 `json:"writes_per_event"`
	CtlPerEvent          float64 `json:"ctl_per_event"`
	WriterWaitsPerEvent  float64 `json:"writer_waits_per_event"`
	// Costs are CPU time and context switches per event and per second for
	// each thread and process that took part.
	Costs []Cost `json:"costs"`
	// Latency is the write-to-read time of tokens (latency mode only).
	Latency *Latency `json:"latency,omitempty"`
	// SetupMillis is how long making and registering the pipes took.
	SetupMillis float64 `json:"setup_ms"`
	// Warnings travel as values; writers decide how to show them.
	Warnings []string `json:"warnings,omitempty"`
}

// PerCall describes ready descriptors per readiness call, from the run's
// histogram: Calls values, Empty of them 0. Mean and Max are exact; the
// quantiles are the histogram's (stats.Hist: exact below 2048, else less
// than 0.1% high) rounded to its stats.HistDigits significant digits.
type PerCall struct {
	Calls uint64  `json:"calls"`
	Empty uint64  `json:"empty"`
	Mean  float64 `json:"mean"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P99   float64 `json:"p99"`
	Max   uint64  `json:"max"`
}

// Latency describes token write-to-read times in nanoseconds: quantiles
// rounded to stats.HistDigits significant digits, as PerCall's; Max exact.
type Latency struct {
	Tokens uint64  `json:"tokens"`
	P50    float64 `json:"p50_ns"`
	P90    float64 `json:"p90_ns"`
	P99    float64 `json:"p99_ns"`
	P999   float64 `json:"p999_ns"`
	Max    uint64  `json:"max_ns"`
}

// Cost is one thread's or process's CPU and scheduler cost.
type Cost struct {
	Who string `json:"who"`
	// CPUPerEvent is user and system time together. The split is left out
	// (nil) for the rest of a process: the kernel apportions each thread's
	// and each process's CPU time between user and system separately, so
	// the process's split less its threads' is not a split of what the
	// other threads used (it can even be negative); the total is exact.
	CPUPerEvent    float64  `json:"cpu_ns_per_event"`
	UserPerEvent   *float64 `json:"user_ns_per_event,omitempty"`
	SystemPerEvent *float64 `json:"system_ns_per_event,omitempty"`
	// Voluntary context switches (the thread slept) and involuntary ones
	// (it was preempted), per second of the window and per event.
	VoluntaryPerSec     float64 `json:"voluntary_ctxsw_per_sec"`
	InvoluntaryPerSec   float64 `json:"involuntary_ctxsw_per_sec"`
	VoluntaryPerEvent   float64 `json:"voluntary_ctxsw_per_event"`
	InvoluntaryPerEvent float64 `json:"involuntary_ctxsw_per_event"`
}

// Summarize computes the summary of res, leaving the first warmup
// intervals out of the evts/sec and tokens/sec figures.
func Summarize(res *pipebench.Result, warmup int) Summary {
	ivs := res.Intervals[min(warmup, len(res.Intervals)):]
	xs := make([]float64, len(ivs))
	var toks uint64
	var secs float64
	for i, iv := range ivs {
		xs[i] = iv.EventsPerSec
		toks += iv.Tokens
		secs += iv.Seconds
	}
	s := Summary{
		EventsPerSec: stats.Summarize(xs, NoisyCV),
		Warmup:       warmup,
		TokensPerSec: stats.Rate(toks, secs),
		Applies:      !res.Setup.NoWaitCall,
		SetupMillis:  float64(res.Setup.Took) / float64(time.Millisecond),
	}
	t := res.Totals
	if s.Applies && t.Calls > t.EmptyCalls {
		s.SamplesPerCall = float64(t.Events) / float64(t.Calls-t.EmptyCalls)
	}
	h := &res.PerCall
	s.PerCall = PerCall{Calls: h.Count(), Empty: h.Zeros(), Mean: h.Mean(),
		P50: quantile(h, 0.5), P90: quantile(h, 0.9), P99: quantile(h, 0.99), Max: h.Max()}
	s.CallsPerEvent = stats.PerEvent(t.Calls, t.Events)
	s.WaitSyscallsPerEvent = stats.PerEvent(t.WaitSyscalls, t.Events)
	s.ReadsPerEvent = stats.PerEvent(t.Reads+res.WriterReads, t.Events)
	s.WritesPerEvent = stats.PerEvent(t.Writes+res.WriterWrites, t.Events)
	s.CtlPerEvent = stats.PerEvent(t.Ctl, t.Events)
	s.WriterWaitsPerEvent = stats.PerEvent(res.WriterWaits, t.Events)
	s.Costs = costs(res)
	if l := &res.Latency; l.Count() > 0 {
		s.Latency = &Latency{Tokens: l.Count(), P50: quantile(l, 0.5), P90: quantile(l, 0.9), P99: quantile(l, 0.99),
			P999: quantile(l, 0.999), Max: l.Max()}
	}
	switch n := len(res.Intervals); {
	case n == 0:
		s.Warnings = append(s.Warnings, "no full interval: the run ended before the first interval")
	case len(ivs) == 0:
		s.Warnings = append(s.Warnings, fmt.Sprintf("no interval after warm-up: the run ended after %s, all warm-up (-warmup %d)", plural(n, "interval"), warmup))
	default:
		s.Warnings = s.EventsPerSec.Warnings("interval")
	}
	if t.Spurious > 0 {
		s.Warnings = append(s.Warnings, "the backend reported pipes ready that had nothing to read")
	}
	s.Warnings = append(s.Warnings, restWarnings(res)...)
	if w := lateWarning(res); w != "" {
		s.Warnings = append(s.Warnings, w)
	}
	if c := h.Clamped(); c > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("ready/call: %s above %d ready, counted as %d", plural(int(c), "call"), h.Highest(), h.Highest()))
	}
	if l := &res.Latency; l.Count() > 0 {
		if c := l.Clamped(); c > 0 {
			top := time.Duration(l.Highest())
			s.Warnings = append(s.Warnings, fmt.Sprintf("latency: %s waited longer than %v, counted as %v in the quantiles", plural(int(c), "token"), top, top))
		}
		if z := l.Zeros(); z > 0 {
			s.Warnings = append(s.Warnings, fmt.Sprintf("latency: %s read at or before the time stamped on them, counted as 0ns", plural(int(z), "token")))
		}
	}
	return s
}

// quantile is h's q-quantile to the digits h holds.
func quantile(h *stats.Hist, q float64) float64 {
	return stats.RoundSig(h.Quantile(q), stats.HistDigits)
}

// plural says n things: "1 interval", "2 intervals".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

func costs(res *pipebench.Result) []Cost {
	events := res.Totals.Events
	secs := res.Elapsed.Seconds()
	one := func(who string, u pipebench.Usage) Cost {
		user, sys := stats.PerEvent(uint64(u.User), events), stats.PerEvent(uint64(u.System), events)
		return Cost{
			Who:                 who,
			CPUPerEvent:         stats.PerEvent(uint64(max(u.CPU(), 0)), events),
			UserPerEvent:        &user,
			SystemPerEvent:      &sys,
			VoluntaryPerSec:     stats.Rate(uint64(u.Voluntary), secs),
			InvoluntaryPerSec:   stats.Rate(uint64(u.Involuntary), secs),
			VoluntaryPerEvent:   stats.PerEvent(uint64(u.Voluntary), events),
			InvoluntaryPerEvent: stats.PerEvent(uint64(u.Involuntary), events),
		}
	}
	// A writer that died before reporting left no figures: show none
	// rather than zeros.
	writer := !res.Tokens.SentUnknown
	mode := res.Setup.Writer
	c := []Cost{one("reader thread", res.ReaderThread)}
	if writer && (mode == pipebench.WriterThread || mode == pipebench.WriterProcess) {
		c = append(c, one("writer thread", res.WriterThread))
	}
	restOf := func(who string, u pipebench.Usage) Cost {
		r := one(who, u)
		r.UserPerEvent, r.SystemPerEvent = nil, nil
		return r
	}
	rest, writerRest := rests(res)
	c = append(c, restOf(restName(res.Setup), rest), one("process", res.Process))
	if writer && mode == pipebench.WriterProcess {
		c = append(c, restOf("writer rest", writerRest), one("writer process", res.WriterProcess))
	}
	return c
}

// rests are what the threads of each process other than its reader and
// writer used: the Go runtime (sysmon, the garbage collector), the
// reporter, the signal handler. The second is the writer process's.
func rests(res *pipebench.Result) (rest, writerRest pipebench.Usage) {
	rest = res.Process.Sub(res.ReaderThread)
	if res.Setup.Writer == pipebench.WriterThread {
		rest = rest.Sub(res.WriterThread)
	}
	return rest, res.WriterProcess.Sub(res.WriterThread)
}

// restName names the row of a process's other threads. With a Driver
// backend (gonet) the reading is done there, on the Go runtime's threads:
// by design, not overhead.
func restName(s pipebench.Setup) string {
	if s.Driver {
		return "goroutines"
	}
	return "rest"
}

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

// Across summarises several runs of one configuration (-count): the
// evts/sec medians of the runs that count, as a sample of their own. A run
// counts unless it is left out (Run.LeftOut): it failed, was interrupted
// before its duration, had no interval after warm-up, or no events.
type Across struct {
	// Runs were made; Summarized of them count; LeftOut did not.
	Runs         int           `json:"runs"`
	Summarized   int           `json:"runs_summarized"`
	LeftOut      int           `json:"runs_left_out"`
	EventsPerSec stats.Summary `json:"evts_per_sec_of_run_medians"`
	Warnings     []string      `json:"warnings,omitempty"`
}

// SummarizeRuns summarises the runs that are not left out.
func SummarizeRuns(runs []Run) Across {
	xs := make([]float64, 0, len(runs))
	for _, r := range runs {
		if r.LeftOut == "" {
			xs = append(xs, r.Summary.EventsPerSec.Median)
		}
	}
	a := Across{Runs: len(runs), Summarized: len(xs), LeftOut: len(runs) - len(xs), EventsPerSec: stats.Summarize(xs, NoisyCV)}
	if len(runs) > 1 {
		a.Warnings = a.EventsPerSec.Warnings("run")
	}
	return a
}

// leftOut says why run r is not a sample of its configuration, "" when it
// is one. duration is the run's configured duration (0: until interrupted,
// when an interrupt is the normal end).
func leftOut(r *Run, duration time.Duration) string {
	switch {
	case r.Error != "" || r.Result == nil:
		return "failed"
	case r.Interrupted && duration > 0:
		return "interrupted"
	case len(r.Intervals) == 0:
		return "no full interval"
	case r.Summary.EventsPerSec.N == 0:
		return "no interval after warm-up"
	case r.Summary.EventsPerSec.Median <= 0:
		return "no events"
	}
	return ""
}
