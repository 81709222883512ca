// Package summary computes what a pipebench run comes to, from its result
// alone: the evts/sec summary over the intervals after warm-up (the one
// warm-up rule of every format), samples per call, the ready-per-call and
// latency distributions, system calls per event, the CPU and context-switch
// cost of each thread and process, warnings as typed values (Warning: which
// condition, which figures), and the summary across the runs of one
// configuration (-count), with the rule that says which runs it leaves out.
// It does no I/O, prints nothing and names no flag: experiment/report
// words a Summary, experiment/sweep keeps a point of one.
//
// Imports: pipebench and stats, as imports_test.go at the module's root
// allows (the table in docs/contributing.md shows the rules).
package summary

import (
	"math"
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
	EventsPerSec stats.Sample `json:"evts_per_sec"`
	// Warmup is how many leading intervals were left out.
	Warmup int `json:"warmup_intervals"`
	// TokensPerSec is tokens received per second over the same intervals.
	TokensPerSec float64 `json:"tokens_per_sec"`
	// HeldTokensPerSec is the least tokens per second of those intervals:
	// the rate the run held in every one. Of an unbounded run (InFlight
	// 0) it is the saturation an open-loop run is measured against
	// (pipebench's definition: what the configuration sustained
	// throughout, not its average, which a faster spell lifts).
	HeldTokensPerSec float64 `json:"held_tokens_per_sec"`
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
	// Per token received, over the whole window: the system calls of the
	// measured threads (Syscalls), and the CPU time of every process that
	// took part, all their threads (an io_uring SQPOLL thread, a thread of
	// the reading process, included), in nanoseconds.
	SyscallsPerToken float64 `json:"syscalls_per_token"`
	CPUPerToken      float64 `json:"cpu_ns_per_token"`
	// CompletionsPerEnter is io_uring completions reaped per io_uring_enter,
	// for a run whose reads and writes were made in a ring
	// (Setup.IOInRing); 0 otherwise.
	CompletionsPerEnter float64 `json:"completions_per_enter,omitempty"`
	// HaltsPerEvent is the idle-state entries of the CPUs the run may use
	// (Result.Halts, POLL left out) per event, over the whole window: how
	// often a CPU halted and had to be woken. nil where they were not
	// counted, and HaltsMissing says why.
	HaltsPerEvent *float64 `json:"halts_per_event"`
	HaltsMissing  string   `json:"halts_missing,omitempty"`
	// IdleShare is how idle the CPUs the run may use were over the
	// window, as a share of their time; MachineCPUPerEvent is every CPU's
	// busy time per event, every program's (machine.go). Both are from
	// /proc/stat (Result.Machine), nil where it was not read.
	IdleShare          *float64 `json:"idle_share,omitempty"`
	MachineCPUPerEvent *float64 `json:"machine_cpu_ns_per_event,omitempty"`
	// Readers are the per-reader figures when the run has several readers
	// or writers; nil otherwise.
	Readers *Readers `json:"readers,omitempty"`
	// Costs are CPU time and context switches per event and per second for
	// each thread and process that took part.
	Costs []Cost `json:"costs"`
	// Latency is the write-to-read time of tokens (latency mode only); in
	// an open-loop run (Config.Rate), from each token's scheduled send.
	Latency *Latency `json:"latency,omitempty"`
	// SetupMillis is how long making and registering the pipes took.
	SetupMillis float64 `json:"setup_ms"`
	// Warnings are the conditions of the run its reader must be told of,
	// as values (Warning); experiment/report words them.
	Warnings []Warning `json:"warnings,omitempty"`
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

// Summarize computes the summary of res, leaving the first warmup
// intervals out of the evts/sec and tokens/sec figures.
func Summarize(res *pipebench.Result, warmup int) Summary {
	ivs := res.Intervals[min(warmup, len(res.Intervals)):]
	xs := make([]float64, len(ivs))
	var toks uint64
	var secs float64
	held := math.Inf(1)
	for i, iv := range ivs {
		xs[i] = iv.EventsPerSec
		toks += iv.Tokens
		secs += iv.Seconds
		held = min(held, iv.TokensPerSec)
	}
	if len(ivs) == 0 {
		held = 0
	}
	s := Summary{
		EventsPerSec:     stats.Describe(xs, NoisyCV),
		Warmup:           warmup,
		TokensPerSec:     stats.Rate(toks, secs),
		HeldTokensPerSec: held,
		Applies:          !res.Setup.NoReadinessCalls,
		SetupMillis:      float64(res.Setup.Took) / float64(time.Millisecond),
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
	s.SyscallsPerToken = stats.PerEvent(Syscalls(res), t.Tokens)
	s.CPUPerToken = stats.PerEvent(uint64(max(res.Process.CPU(), 0)+max(res.WriterProcess.CPU(), 0)), t.Tokens)
	if res.Setup.IOInRing {
		s.CompletionsPerEnter = stats.PerEvent(t.Completions, t.WaitSyscalls)
	}
	s.HaltsPerEvent, s.HaltsMissing = haltsPerEvent(res)
	s.IdleShare, s.MachineCPUPerEvent = machine(res)
	s.Readers = readers(res, ivs)
	s.Costs = costs(res)
	if l := &res.Latency; l.Count() > 0 {
		s.Latency = &Latency{Tokens: l.Count(), P50: quantile(l, 0.5), P90: quantile(l, 0.9), P99: quantile(l, 0.99),
			P999: quantile(l, 0.999), Max: l.Max()}
	}
	s.Warnings = warnings(res, &s)
	return s
}

// Syscalls are the system calls the measured threads made in the window:
// the readiness mechanism's (every epoll_pwait, ppoll, pselect6 or
// io_uring_enter, SQPOLL wake-ups included), the reader's reads and
// writes, its interest changes, and a writer's reads, writes and waits.
// Left out: interest changes that were io_uring entries carried by its
// io_uring_enter calls (Setup.CtlInRing), and reads and writes that were
// io_uring operations too (Setup.IOInRing, uring-rw); the Go runtime's own
// calls, outside the measured threads.
func Syscalls(res *pipebench.Result) uint64 {
	t := res.Totals
	n := t.WaitSyscalls + res.WriterReads + res.WriterWrites + res.WriterWaits
	if !res.Setup.IOInRing {
		n += t.Reads + t.Writes
	}
	if !res.Setup.CtlInRing {
		n += t.Ctl
	}
	return n
}

// quantile is h's q-quantile to the digits h holds.
func quantile(h *stats.Hist, q float64) float64 {
	return stats.RoundSig(h.Quantile(q), stats.HistDigits)
}
