package pipebench

import (
	"time"

	"github.com/pipebench/pipebench/internal/osthread"
	"github.com/pipebench/pipebench/internal/tokens"
	"github.com/pipebench/pipebench/stats"
)

// Usage is CPU time and context switches from getrusage, for a thread or a
// process, over the measured window (internal/osthread).
type Usage = osthread.Usage

// Halts are the idle-state entries of the CPUs a run may use over its
// measured window, POLL left out (internal/osthread).
type Halts = osthread.Halts

// MachineCPU is the machine's CPU time over the measured window, every
// program's, from /proc/stat (internal/osthread).
type MachineCPU = osthread.MachineCPU

// Setup describes a run once its pipes are made, before it is measured:
// the configuration it runs with, and what was decided when it was set up.
type Setup struct {
	// Config is the configuration the run runs with: Run's, with its
	// defaults filled in (Readers and Writers at least 1, WaitTimeout,
	// StallAfter), Writer the mode that runs (the one auto chose), and CPUs
	// the list that Spread resolved. Its settings are Setup's own in JSON.
	Config
	// Reason says why auto chose the writer; empty when not chosen by auto.
	Reason string `json:"writer_reason,omitempty"`
	// Took is the time to make and register the pipes.
	Took      time.Duration `json:"setup_ns"`
	ReaderFDs int           `json:"reader_fds"`
	WriterFDs int           `json:"writer_fds,omitempty"`
	Limit     uint64        `json:"fd_limit"`
	// What the run did, for the figures that depend on it (each false in
	// the common case). NoReadinessCalls: the readers never asked a
	// mechanism which pipes were ready (Counts.Calls is 0: a Loop read the
	// pipes), so samples per call does not apply.
	// ReadsOnGoroutines: the reads were made on goroutines parked by the Go
	// runtime (gonet), not on the reader thread, so that the process's
	// other threads' CPU is reading, not overhead. CtlInRing: interest
	// changes (Counts.Ctl) were io_uring entries carried by io_uring_enter,
	// not system calls. IOInRing: the reads and writes (Counts.Reads and
	// Writes) were io_uring operations too, counted as they completed,
	// with their completions (Counts.Completions).
	NoReadinessCalls  bool `json:"no_readiness_calls,omitempty"`
	ReadsOnGoroutines bool `json:"reads_on_goroutines,omitempty"`
	CtlInRing         bool `json:"ctl_in_ring,omitempty"`
	IOInRing          bool `json:"io_in_ring,omitempty"`
	// GOMAXPROCS is this process's during the window: what it was, plus
	// LentPs, one P for each measured thread (procs.go).
	GOMAXPROCS int `json:"gomaxprocs"`
	LentPs     int `json:"lent_ps"`
	// PID is the reading process; ReaderTID its reading thread. WriterPID
	// and WriterTID are the writer's process and thread (equal to PID and
	// 0 in self mode).
	PID       int `json:"pid"`
	ReaderTID int `json:"reader_tid"`
	WriterPID int `json:"writer_pid"`
	WriterTID int `json:"writer_tid,omitempty"`
	// ReaderTIDs and WriterTIDs are every reader's and writer thread's id,
	// in order, when there are several readers or writers.
	ReaderTIDs []int `json:"reader_tids,omitempty"`
	WriterTIDs []int `json:"writer_tids,omitempty"`
}

// Interval is one reporting interval of the measured window.
type Interval struct {
	Index int `json:"index"`
	// Seconds is the interval's measured length.
	Seconds float64 `json:"seconds"`
	Counts
	EventsPerSec float64 `json:"evts_per_sec"`
	TokensPerSec float64 `json:"tokens_per_sec"`
	// SamplesPerCall is events per non-empty readiness call: pipebench's
	// definition of the figure seed 001 prints (the seed defines none); 0
	// when there was no call (and for backends without one).
	SamplesPerCall float64 `json:"samples_per_call"`
	// CPU is the CPU time the threads and processes used in the interval.
	CPU CPUTimes `json:"cpu"`
	// Readers are each reader's events in the interval, when there are
	// several readers or writers: they add up to Events.
	Readers []uint64 `json:"reader_events,omitempty"`
	// Late is how long after its boundary (the window's start plus Index
	// intervals) the reporter took the interval's counts: the time it
	// waited for a CPU and for the Go scheduler (not the wait, after it,
	// for the readers to publish the counts they hold back: run.freshen).
	Late time.Duration `json:"late_ns"`
}

func newInterval(index int, d Counts, elapsed time.Duration, cpu CPUTimes) Interval {
	iv := Interval{Index: index, Seconds: elapsed.Seconds(), Counts: d, CPU: cpu}
	if iv.Seconds > 0 {
		iv.EventsPerSec = float64(d.Events) / iv.Seconds
		iv.TokensPerSec = float64(d.Tokens) / iv.Seconds
	}
	if full := d.Calls - d.EmptyCalls; full > 0 {
		iv.SamplesPerCall = float64(d.Events) / float64(full)
	}
	return iv
}

// Tokens is the run's token accounting: every token sent was received during
// the run or drained from its pipe at teardown.
type Tokens struct {
	Sent     uint64 `json:"sent"`
	Received uint64 `json:"received"`
	Drained  uint64 `json:"drained"`
	// Lost is Sent - Received - Drained; anything but 0 fails the run.
	Lost int64 `json:"lost"`
	// SentUnknown is set when the writer process died or hung before
	// reporting its count: Sent and Lost are then unknown (0 here), and so
	// are the writer's CPU figures. The run has failed already.
	SentUnknown bool `json:"sent_unknown,omitempty"`
	// Full counts an unbounded writer's writes that found a pipe full (the
	// token was not sent, so it is not lost).
	Full uint64 `json:"writer_full,omitempty"`
}

// Result is everything a run measured.
type Result struct {
	Setup     Setup      `json:"setup"`
	Intervals []Interval `json:"intervals"`
	// Elapsed is the whole measured window, a partial last interval included.
	Elapsed time.Duration `json:"elapsed_ns"`
	// Interrupted is set when Stop ended the run before its duration.
	Interrupted bool `json:"interrupted"`
	// Totals count the whole measured window.
	Totals Counts `json:"totals"`
	// Tail counts the end of the window after the last full interval (the
	// reader's last calls after the duration, or what an interrupt or a
	// failure cut short): Intervals and Tail add up to Totals.
	Tail   Counts `json:"tail"`
	Tokens Tokens `json:"tokens"`
	// Pacing is how an open-loop run (Config.Rate) kept its schedule; nil
	// for a closed loop.
	Pacing *Pacing `json:"pacing,omitempty"`
	// WriterWrites, WriterReads and WriterWaits are the writer's system
	// calls in the window (thread and process mode), made until it saw the
	// window close: every write(2) of a token, those that found the pipe
	// full included (Tokens.Full counts them); every read(2) of the credit
	// pipe; every ppoll(2) waiting for credits.
	WriterWrites uint64 `json:"writer_writes"`
	WriterReads  uint64 `json:"writer_reads"`
	WriterWaits  uint64 `json:"writer_waits"`
	// PerCall is the distribution of ready descriptors per readiness call
	// (0 for an empty call) over the whole window: one value per call in
	// Totals.Calls.
	PerCall stats.Hist `json:"-"`
	// Latency is the write-to-read time of every token received, in
	// nanoseconds (latency mode only); in an open-loop run (Config.Rate)
	// the time from its scheduled send to its read, free of coordinated
	// omission (internal/tokens, pace.go).
	Latency stats.Hist `json:"-"`
	// Readers and Writers are each reader's and writer thread's part, when
	// there are several readers or writers (Config.Readers,
	// Config.Writers); nil otherwise.
	Readers []ReaderResult `json:"readers,omitempty"`
	Writers []WriterResult `json:"writers,omitempty"`
	// Usage over the measured window: the reader thread, the writer thread,
	// the reading process (all its threads) and the writer process. With
	// several readers or writers, ReaderThread and WriterThread add up all
	// readers' and all writers'.
	ReaderThread  Usage `json:"reader_thread"`
	WriterThread  Usage `json:"writer_thread"`
	Process       Usage `json:"process"`
	WriterProcess Usage `json:"writer_process"`
	// KernelThread is the usage of a thread the backend's kernel runs in
	// the reading process (KernelThread: io_uring's SQPOLL thread), part
	// of Process; nil when there is none.
	KernelThread *ThreadUsage `json:"kernel_thread,omitempty"`
	// Halts are the entries into an idle state of the CPUs the process
	// may run on, read when the window opens and when it closes; no count
	// (Halts.Entries nil) where cpuidle is absent or was not read.
	Halts Halts `json:"halts"`
	// Machine is the machine's CPU time over the window, every CPU's and
	// every program's, read from /proc/stat when the window opens and when
	// it closes: with the run's own processes' usage (Process,
	// WriterProcess) it says what other programs used (Others), and of the
	// CPUs the run may use (Machine.CPUs), how idle they were
	// (Machine.Allowed).
	Machine MachineCPU `json:"machine_cpu"`
}

// Others is how much of a CPU other programs used over the window, on
// average: the machine's busy time less the run's own processes' CPU
// time, over the window's length; and how much the hypervisor took
// (steal). ok is false where the machine's time was not read. /proc/stat
// counts in ticks of 10ms, so that a window of a second or more is needed
// for a figure good to a hundredth of a CPU.
func (r *Result) Others() (others, steal float64, ok bool) {
	m := &r.Machine
	if m.Missing != "" || len(m.PerCPU) == 0 || r.Elapsed <= 0 {
		return 0, 0, false
	}
	own := max(r.Process.CPU(), 0) + max(r.WriterProcess.CPU(), 0)
	w := float64(r.Elapsed)
	return max(float64(m.Total.Busy()-own), 0) / w, float64(m.Total.Steal) / w, true
}

// ReaderResult is one reader thread's part of a run with several readers or
// writers: the pipes it watched (First to First+Pipes-1, through its own
// backend instance), its counts over the window (the ctl calls of every
// instance are in Result.Totals only) and its thread's usage.
type ReaderResult struct {
	TID    int    `json:"tid"`
	First  int    `json:"first_pipe"`
	Pipes  int    `json:"pipes"`
	Totals Counts `json:"totals"`
	Usage  Usage  `json:"usage"`
}

// WriterResult is one writer thread's part of a run with several readers
// or writers: the pipes it owns (every Writers-th, from its Index), its
// tokens in flight (0: unbounded), its system calls and what its tokens
// came to. Sent = Received + Drained for every writer, Lost 0: Received
// are the tokens the readers read from its pipes (the credits they owed
// it), Drained those read from them at teardown.
type WriterResult struct {
	Index    int `json:"index"`
	TID      int `json:"tid"`
	Pipes    int `json:"pipes"`
	InFlight int `json:"in_flight"`
	tokens.WriterCounts
	Received uint64 `json:"received"`
	Drained  uint64 `json:"drained"`
	Lost     int64  `json:"lost"`
	Usage    Usage  `json:"usage"`
}

// Pacing is how an open-loop run (Config.Rate) kept its schedule: what it
// offered, how its writers ticked, what they sent and the readers
// received, and whether the rate was past saturation. Its window runs
// from the schedule's start, when the measured window opened, to when
// the window closed and the writers were told to stop (or a writer's
// last tick, if it read the clock a moment later).
type Pacing struct {
	// Rate is the offered rate, tokens per second (Config.Rate).
	Rate float64 `json:"rate"`
	// Tick is each writer's tick: the time between two of its tokens, or
	// tokens.MinTick where they come faster; TokensPerTick are the
	// tokens due in a tick (1, or more at MinTick). Ticks counts the
	// writers' wake-ups, at each of which they read the clock once and
	// wrote what was due: Tokens.Sent / Ticks is what a tick wrote.
	Tick          time.Duration `json:"tick_ns"`
	TokensPerTick float64       `json:"tokens_per_tick"`
	Ticks         uint64        `json:"ticks"`
	// Window is the schedule's time, and Due the tokens due in it (every
	// writer's).
	Window time.Duration `json:"window_ns"`
	Due    uint64        `json:"due"`
	// SentRate is the rate the writers achieved, Tokens.Sent per second
	// of Window; ReceivedRate the readers', Tokens.Received per second of
	// it.
	SentRate     float64 `json:"sent_rate"`
	ReceivedRate float64 `json:"received_rate"`
	// Backlog is the tokens due in the window and not sent (up to a
	// tick's when the writers keep up); MaxBacklog the most one writer
	// found due and not yet written when it woke.
	Backlog    uint64 `json:"backlog"`
	MaxBacklog uint64 `json:"max_backlog"`
	// Saturated says that the rate was past saturation, and Behind who
	// fell behind (SaturationShare).
	Saturated bool   `json:"saturated"`
	Behind    string `json:"behind,omitempty"`
}

// SaturationShare is the share of its tokens a side may leave behind
// before an open-loop run says the rate is past saturation (Pacing): the
// writers, when their Backlog at the end is over SaturationShare of the
// tokens due (they could not write what was due: pipes full, or no CPU to
// write on time); the readers, when the tokens sent and not received
// (drained at the end: the tokens in flight, which a reader that keeps
// up holds at a few) are over SaturationShare of those sent. Either is
// allowed two ticks' tokens besides, so that a short window at a low
// rate is not judged on a token.
const SaturationShare = 0.01

// judge sets Saturated and Behind from the backlog and the tokens tk
// accounts for, of writers writers.
func (p *Pacing) judge(tk Tokens, writers int) {
	slack := 2 * p.TokensPerTick * float64(writers)
	over := func(left, of uint64) bool {
		return float64(left) > max(SaturationShare*float64(of), slack)
	}
	wrote := over(p.Backlog, p.Due)
	read := tk.Sent > tk.Received && over(tk.Sent-tk.Received, tk.Sent)
	switch {
	case wrote && read:
		p.Behind = "writers and readers"
	case wrote:
		p.Behind = "writers"
	case read:
		p.Behind = "readers"
	}
	p.Saturated = wrote || read
}
