package summary

import (
	"time"

	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/stats"
)

// Warning is a condition of a run that a reader must be told of before
// trusting its figures: Kind says which, the other fields the figures it
// rests on, those its kind names (zero otherwise). Warnings travel as
// values; experiment/report words them. What the evts/sec sample itself
// shows (too few intervals, noise, values skipped) is in the Sample (N,
// Noisy, CV, Skipped), not repeated here.
type Warning struct {
	Kind Kind `json:"kind"`
	// Count is how many: intervals, all warm-up (NoIntervalAfterWarmup);
	// reads of pipes reported ready that found nothing (SpuriousReads);
	// calls or tokens above the histogram's highest value (ReadyClamped,
	// LatencyClamped); tokens read at or before their stamp (LatencyEarly).
	Count uint64 `json:"count,omitempty"`
	// Warmup is the leading intervals left out (NoIntervalAfterWarmup).
	Warmup int `json:"warmup,omitempty"`
	// Who is the process whose other threads used Value of its CPU
	// (BusyRest): "process" or "writer process".
	Who string `json:"who,omitempty"`
	// Value is the figure warned of: a share of a process's CPU (BusyRest),
	// halts per event (ManyHalts); Limit is the threshold it passed
	// (RestShare, LateShare, HaltsAbove).
	Value float64 `json:"value,omitempty"`
	Limit float64 `json:"limit,omitempty"`
	// Interval was counted Late after its boundary (LateInterval).
	Interval int           `json:"interval,omitempty"`
	Late     time.Duration `json:"late_ns,omitempty"`
	// Highest is the histogram's highest value: ready pipes
	// (ReadyClamped), nanoseconds (LatencyClamped).
	Highest uint64 `json:"highest,omitempty"`
}

// Kind is which condition a Warning is of.
type Kind string

const (
	// NoFullInterval: the run ended before its first interval.
	NoFullInterval Kind = "no_full_interval"
	// NoIntervalAfterWarmup: every interval of the run was warm-up.
	NoIntervalAfterWarmup Kind = "no_interval_after_warmup"
	// SpuriousReads: the backend reported pipes ready that had nothing to
	// read.
	SpuriousReads Kind = "spurious_reads"
	// BusyRest: a process's threads other than the reader and writer used
	// more than RestShare of its CPU.
	BusyRest Kind = "busy_rest"
	// LateInterval: an interval was counted more than LateShare of an
	// interval after its boundary.
	LateInterval Kind = "late_interval"
	// ManyHalts: the CPUs of a run the scheduler placed halted more than
	// HaltsAbove times an event.
	ManyHalts Kind = "many_halts"
	// Sysmon: the run the scheduler placed on CPUs that halt shares its
	// process with the Go runtime's sysmon thread.
	Sysmon Kind = "sysmon"
	// ReadyClamped: readiness calls reported more pipes ready than the
	// histogram holds.
	ReadyClamped Kind = "ready_clamped"
	// LatencyClamped: tokens waited longer than the latency histogram
	// holds.
	LatencyClamped Kind = "latency_clamped"
	// LatencyEarly: tokens were read at or before the time stamped on them.
	LatencyEarly Kind = "latency_early"
)

// warnings are the conditions of res, summarised as s, in the order a
// reader should hear them: the intervals, the backend, the threads, the
// clock, the CPUs, the histograms.
func warnings(res *pipebench.Result, s *Summary) []Warning {
	var w []Warning
	switch n := len(res.Intervals); {
	case n == 0:
		w = append(w, Warning{Kind: NoFullInterval})
	case n <= s.Warmup:
		w = append(w, Warning{Kind: NoIntervalAfterWarmup, Count: uint64(n), Warmup: s.Warmup})
	}
	if t := res.Totals.Spurious; t > 0 {
		w = append(w, Warning{Kind: SpuriousReads, Count: t})
	}
	w = append(w, restWarnings(res)...)
	w = append(w, lateWarnings(res)...)
	// At a fixed offered load (Rate) the CPUs are meant to idle between
	// tokens: their idle entries are the result, not a hazard.
	if placed(res) && res.Setup.Rate == 0 && s.HaltsPerEvent != nil && *s.HaltsPerEvent > HaltsAbove {
		w = append(w, Warning{Kind: ManyHalts, Value: *s.HaltsPerEvent, Limit: HaltsAbove})
	}
	if h := res.Halts.Entries; placed(res) && h != nil && *h > 0 {
		w = append(w, Warning{Kind: Sysmon})
	}
	if h := &res.PerCall; h.Clamped() > 0 {
		w = append(w, Warning{Kind: ReadyClamped, Count: h.Clamped(), Highest: h.Highest()})
	}
	if l := &res.Latency; l.Count() > 0 && l.Clamped() > 0 {
		w = append(w, Warning{Kind: LatencyClamped, Count: l.Clamped(), Highest: l.Highest()})
	}
	if l := &res.Latency; l.Count() > 0 && l.Zeros() > 0 {
		w = append(w, Warning{Kind: LatencyEarly, Count: l.Zeros()})
	}
	return w
}

// RestShare is the share of a process's CPU above which its threads other
// than the reader and writer (the Go runtime's) earn a warning: the figures
// are then not only the kernel's.
const RestShare = 0.02

// restWarnings warn, for each process, when its other threads used more
// than RestShare of its CPU; not for the reading process of a run whose
// reads were made on goroutines, whose reading is done by those threads.
func restWarnings(res *pipebench.Result) []Warning {
	var w []Warning
	check := func(who string, rest, total pipebench.Usage) {
		if total.CPU() > 0 && float64(rest.CPU()) > RestShare*float64(total.CPU()) {
			w = append(w, Warning{Kind: BusyRest, Who: who, Value: float64(rest.CPU()) / float64(total.CPU()), Limit: RestShare})
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

// lateWarnings warn when an interval's counts were taken more than
// LateShare of an interval after its boundary: of the latest such
// interval.
func lateWarnings(res *pipebench.Result) []Warning {
	var worst pipebench.Interval
	for _, iv := range res.Intervals {
		if iv.Late > worst.Late {
			worst = iv
		}
	}
	if worst.Index == 0 || float64(worst.Late) <= LateShare*float64(res.Setup.Interval) {
		return nil
	}
	return []Warning{{Kind: LateInterval, Interval: worst.Index, Late: worst.Late, Limit: LateShare}}
}

// HaltsAbove is the halts per event above which a run with a writer thread
// or process, free to run on more than one CPU, earns a warning: its CPUs
// then halt about once an event, and each wake-up of a halted CPU (on a VM,
// the host running it again) sets the run's speed (ManyHalts). Every such
// run that halts at all shares its process with the Go runtime's sysmon
// thread, which wakes about every 10 ms; where idle CPUs halt, it moves the
// reader and the writer onto one CPU more often, which spares the run
// wake-ups of halted CPUs (the yardstick's -tick, tools/yardstick/README.md,
// gives a C program such a thread) (Sysmon). The text advises pinning
// (-cpu), docs/output.md#idle and #unpinned.
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

// placed says whether the scheduler chose the CPUs of the run's reader and
// writer: a writer thread or process, no pinning, more than one CPU
// allowed.
func placed(res *pipebench.Result) bool {
	s := res.Setup
	return (s.Writer == pipebench.WriterThread || s.Writer == pipebench.WriterProcess) && len(s.CPUs) == 0 && len(res.Halts.CPUs) > 1
}
