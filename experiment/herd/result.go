package herd

import (
	"time"

	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/stats"
)

// Counts are what waiters count, for one waiter or summed over all.
type Counts struct {
	// Waits are epoll_wait calls.
	Waits uint64 `json:"waits"`
	// Returns are waits that returned with at least one pipe reported
	// ready, whether the waiter slept or found one ready on entry. A waiter
	// woken for a pipe that another waiter has emptied in the meantime does
	// not return: level-triggered epoll finds nothing ready and puts it back
	// to sleep inside the kernel. Such wake-ups show only as context
	// switches (Figures.WakeupsPerToken).
	Returns uint64 `json:"returns"`
	// Timeouts are waits that returned nothing.
	Timeouts uint64 `json:"timeouts"`
	// Events are reads that got tokens; Tokens the bytes they carried.
	Events uint64 `json:"events"`
	Tokens uint64 `json:"tokens"`
	// WastedReads are reads of a reported pipe that found it empty: another
	// waiter had taken the token.
	WastedReads uint64 `json:"wasted_reads"`
	// WastedReturns are returns whose reads all found nothing: the
	// wasted wake-ups that reached user space.
	WastedReturns uint64 `json:"wasted_returns"`
	// Credits are credit words written back to the writer.
	Credits uint64 `json:"credits"`
}

// Add returns a + b.
func (a Counts) Add(b Counts) Counts {
	return Counts{
		a.Waits + b.Waits, a.Returns + b.Returns, a.Timeouts + b.Timeouts,
		a.Events + b.Events, a.Tokens + b.Tokens,
		a.WastedReads + b.WastedReads, a.WastedReturns + b.WastedReturns, a.Credits + b.Credits,
	}
}

// Sub returns a - b.
func (a Counts) Sub(b Counts) Counts {
	return Counts{
		a.Waits - b.Waits, a.Returns - b.Returns, a.Timeouts - b.Timeouts,
		a.Events - b.Events, a.Tokens - b.Tokens,
		a.WastedReads - b.WastedReads, a.WastedReturns - b.WastedReturns, a.Credits - b.Credits,
	}
}

// Setup describes one setting once its waiters are all waiting.
type Setup struct {
	Exclusive bool `json:"exclusive"`
	// Round is the round the setting ran in, from 1; 0 (left out of the
	// JSON) in a run of one round.
	Round    int  `json:"round,omitempty"`
	Waiters  int  `json:"waiters"`
	Mode     Mode `json:"mode"`
	Pipes    int  `json:"pipes"`
	InFlight int  `json:"in_flight"`
	// Took is the time to make the pipes and start and register every waiter.
	Took time.Duration `json:"setup_ns"`
	// ParentFDs and WaiterFDs are the planned peak descriptors of the
	// measuring process and of one waiter process; Limit is RLIMIT_NOFILE.
	ParentFDs int    `json:"parent_fds"`
	WaiterFDs int    `json:"waiter_fds,omitempty"`
	Limit     uint64 `json:"fd_limit"`
	// GOMAXPROCS is the measuring process's during the run (threads mode
	// raises it to Waiters+2); a waiter process runs with 2.
	GOMAXPROCS int `json:"gomaxprocs"`
}

// Interval is one reporting interval of a setting.
type Interval struct {
	Exclusive bool    `json:"exclusive"`
	Index     int     `json:"index"`
	Seconds   float64 `json:"seconds"`
	Counts
	EventsPerSec float64 `json:"evts_per_sec"`
	// ReturnsPerToken is the interval's returns over its tokens.
	ReturnsPerToken float64 `json:"returns_per_token"`
}

func newInterval(ex bool, index int, d Counts, elapsed time.Duration) Interval {
	s := elapsed.Seconds()
	return Interval{
		Exclusive: ex, Index: index, Seconds: s, Counts: d,
		EventsPerSec:    stats.Rate(d.Events, s),
		ReturnsPerToken: stats.PerEvent(d.Returns, d.Tokens),
	}
}

// Waiter is one waiter's whole life: its counts and its thread's usage.
type Waiter struct {
	// ID is the waiter's thread ID (threads) or process ID (processes).
	ID     int             `json:"id"`
	Counts Counts          `json:"counts"`
	Usage  pipebench.Usage `json:"usage"`
}

// Setting is one EPOLLEXCLUSIVE setting's measurement.
type Setting struct {
	Setup     Setup      `json:"setup"`
	Intervals []Interval `json:"intervals"`
	// Elapsed is the measured window, from the writer's start to the stop.
	Elapsed     time.Duration `json:"elapsed_ns"`
	Interrupted bool          `json:"interrupted"`
	// Window counts the measured window; Totals count the waiters' whole
	// lives (a few waits before the writer starts and after the stop), and
	// are the sum of Waiters' counts.
	Window  Counts   `json:"window"`
	Totals  Counts   `json:"totals"`
	Waiters []Waiter `json:"waiters"`
	// WaiterUsage is the sum of the waiters' threads' usage, from each
	// waiter's first wait to its stop (idle waiting costs next to nothing).
	WaiterUsage pipebench.Usage `json:"waiter_usage"`
	// Writer is the writer thread's usage; Process the measuring process's
	// over the window (in threads mode it includes the waiters).
	Writer  pipebench.Usage  `json:"writer_usage"`
	Process pipebench.Usage  `json:"process_usage"`
	Tokens  pipebench.Tokens `json:"tokens"`
}

// Result is a herd experiment: one Setting per EPOLLEXCLUSIVE setting, in the order run.
type Result struct {
	// Rounds is how many times every setting was measured (Config.Rounds).
	Rounds int `json:"rounds"`
	// Settings keep the JSON name they had when a setting was called a side.
	// With several rounds they are every repetition, in the order run, each
	// naming its round (Setup.Round).
	Settings []Setting `json:"sides"`
}

// Figures are a setting's derived numbers, the ones worth comparing across
// settings.
type Figures struct {
	// EventsPerSec summarizes the intervals after warm-up.
	EventsPerSec stats.Sample `json:"evts_per_sec"`
	// TokensPerSec is over the whole window.
	TokensPerSec float64 `json:"tokens_per_sec"`
	// WakeupsPerToken is the waiters' voluntary context switches, less
	// their timeouts, per token: how often the kernel woke a sleeping waiter
	// per token delivered, whether or not the wait then returned. 1 is no
	// herd; the waiter count is a full herd.
	WakeupsPerToken float64 `json:"wakeups_per_token"`
	// ReturnsPerToken is waits that returned with a ready pipe per token.
	ReturnsPerToken float64 `json:"returns_per_token"`
	// WastedReturnsPerToken are returns that found nothing to read, per
	// token; WastedReturnShare is their share of all returns.
	WastedReturnsPerToken float64 `json:"wasted_returns_per_token"`
	WastedReturnShare     float64 `json:"wasted_return_share"`
	// WastedReadsPerToken are reads that found a reported pipe empty.
	WastedReadsPerToken float64 `json:"wasted_reads_per_token"`
	// WaiterSystem is the waiters' system CPU time in all, in nanoseconds.
	WaiterSystem float64 `json:"waiters_sys_ns"`
	// SystemPerToken and UserPerToken are the waiters' CPU time per token,
	// in nanoseconds; WriterSystemPerToken the writer thread's.
	SystemPerToken       float64 `json:"system_ns_per_token"`
	UserPerToken         float64 `json:"user_ns_per_token"`
	WriterSystemPerToken float64 `json:"writer_system_ns_per_token"`
	// MinTokens and MaxTokens are the least and most tokens one waiter got.
	MinTokens uint64 `json:"min_waiter_tokens"`
	MaxTokens uint64 `json:"max_waiter_tokens"`
}

// Figures derives a setting's numbers, leaving warmup intervals out of the
// evts/sec summary. Per-token figures use the waiters' whole lives, so that
// counts and CPU time cover the same span.
func (s *Setting) Figures(warmup int) Figures {
	var rates []float64
	for i, iv := range s.Intervals {
		if i >= warmup {
			rates = append(rates, iv.EventsPerSec)
		}
	}
	t := s.Totals
	sleeps := max(s.WaiterUsage.Voluntary-int64(t.Timeouts), 0)
	f := Figures{
		EventsPerSec:          stats.Describe(rates, 0.05),
		TokensPerSec:          stats.Rate(s.Window.Tokens, s.Elapsed.Seconds()),
		WakeupsPerToken:       stats.PerEvent(uint64(sleeps), t.Tokens),
		ReturnsPerToken:       stats.PerEvent(t.Returns, t.Tokens),
		WastedReturnsPerToken: stats.PerEvent(t.WastedReturns, t.Tokens),
		WastedReturnShare:     stats.PerEvent(t.WastedReturns, t.Returns),
		WastedReadsPerToken:   stats.PerEvent(t.WastedReads, t.Tokens),
		WaiterSystem:          float64(s.WaiterUsage.System),
		SystemPerToken:        stats.PerEvent(uint64(s.WaiterUsage.System), t.Tokens),
		UserPerToken:          stats.PerEvent(uint64(s.WaiterUsage.User), t.Tokens),
		WriterSystemPerToken:  stats.PerEvent(uint64(s.Writer.System), s.Tokens.Sent),
	}
	for i, w := range s.Waiters {
		if i == 0 || w.Counts.Tokens < f.MinTokens {
			f.MinTokens = w.Counts.Tokens
		}
		f.MaxTokens = max(f.MaxTokens, w.Counts.Tokens)
	}
	return f
}
