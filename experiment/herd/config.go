package herd

import (
	"fmt"
	"time"

	"github.com/pipebench/pipebench/internal/tokens"
	"github.com/pipebench/pipebench/pipebench"
)

// Mode says what a waiter is.
type Mode int

const (
	// Threads: each waiter is an OS thread of the measuring process.
	Threads Mode = iota
	// Processes: each waiter is a process of its own (this binary started
	// again), as in the EPOLLEXCLUSIVE seed's 250 server processes.
	Processes
)

var modeNames = [...]string{"threads", "processes"}

func (m Mode) String() string {
	if m < 0 || int(m) >= len(modeNames) {
		return fmt.Sprintf("Mode(%d)", int(m))
	}
	return modeNames[m]
}

// MarshalText writes the mode's name into JSON.
func (m Mode) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText reads a mode from its name.
func (m *Mode) UnmarshalText(b []byte) error {
	v, err := ParseMode(string(b))
	*m = v
	return err
}

// ParseMode maps a -mode value to its Mode.
func ParseMode(s string) (Mode, error) {
	for i, n := range modeNames {
		if s == n {
			return Mode(i), nil
		}
	}
	return 0, fmt.Errorf("unknown mode %q: want threads or processes", s)
}

// MaxWaiters bounds the waiters of one run: each is an OS thread or a
// process, and each adds an epoll registration per pipe.
const MaxWaiters = 1024

// MaxRounds bounds the repetitions of one run.
const MaxRounds = 1000

// Config is one herd experiment.
type Config struct {
	// Waiters is how many waiters share the pipes (-waiters).
	Waiters int
	// Pipes is how many pipes are made (-n).
	Pipes int
	// InFlight is how many tokens circulate (-l), at least 1.
	InFlight int
	// Mode says whether waiters are threads or processes.
	Mode Mode
	// Exclusive lists the settings to measure, in order; each runs for
	// Duration on a fresh setup. Default: off, then on.
	Exclusive []bool
	// Rounds measures every setting this many times (default 1), each time
	// on a fresh setup: every setting once a round, the order rotating by
	// one setting a round (off, on; then on, off; ...), so that a drift of
	// the machine's speed falls on every setting alike.
	Rounds int
	// RouteSeed seeds the writer's random choice of pipe (-seed).
	RouteSeed uint64
	// Duration is the measured window of each setting, > 0.
	Duration time.Duration
	// Interval is the reporting interval.
	Interval time.Duration
	// WaitTimeout bounds every epoll_wait, so that no waiter can hang; a
	// wait that times out is counted. Default 100ms.
	WaitTimeout time.Duration
	// StallAfter fails a setting that receives no token for this long.
	// Default: the larger of three intervals and 2 s.
	StallAfter time.Duration
}

// Observers are the caller's hooks into a herd, apart from its settings
// (Config); the zero value observes nothing.
type Observers struct {
	// Stop, when closed, ends the current setting early and skips the rest.
	Stop <-chan struct{}
	// OnSetup is called when a setting's waiters are all waiting, just
	// before its writer starts.
	OnSetup func(Setup)
	// OnInterval is called at the end of every full interval.
	OnInterval func(Interval)
}

// check reports the first rule c breaks, a *pipebench.ConfigError written
// by n (the herd's rules, as pipebench.Prepare's are the run's).
func (c *Config) check(n pipebench.Names) error {
	set := pipebench.Set
	switch {
	case c.Waiters < 1 || c.Waiters > MaxWaiters:
		return n.Errorf("%s: want 1 to %d waiters", set("Waiters", c.Waiters), MaxWaiters)
	case c.Pipes < 1:
		return n.Errorf("%s: want at least 1 pipe", set("Pipes", c.Pipes))
	case c.InFlight < 1 || c.InFlight > pipebench.MaxInFlight:
		return n.Errorf("%s: want 1 to %d tokens in flight (the herd's writer waits for credits)", set("InFlight", c.InFlight), pipebench.MaxInFlight)
	case c.Mode != Threads && c.Mode != Processes:
		return n.Errorf("%s: want threads or processes", set("Mode", c.Mode))
	case c.Rounds < 0 || c.Rounds > MaxRounds:
		return n.Errorf("%s: want 1 to %d rounds", set("Rounds", c.Rounds), MaxRounds)
	case c.Duration <= 0:
		return n.Errorf("%s: want a positive duration (each setting runs that long)", set("Duration", c.Duration))
	case c.Interval <= 0 || c.Interval > c.Duration:
		return n.Errorf("%s: want a positive interval no longer than %s", set("Interval", c.Interval), set("Duration", c.Duration))
	case c.Mode == Threads && tokens.AsyncPreemptOff():
		return n.Errorf("%s with GODEBUG=asyncpreemptoff=1: the writer's sleep for credits ends only on a credit or the runtime's preemption signal, so a garbage collection that stopped every waiter first would wait for good: use %s, or run without asyncpreemptoff",
			set("Mode", c.Mode), set("Mode", Processes))
	}
	return nil
}

func (c *Config) withDefaults() Config {
	d := *c
	if d.Exclusive == nil {
		d.Exclusive = []bool{false, true}
	}
	if d.Rounds == 0 {
		d.Rounds = 1
	}
	if d.WaitTimeout <= 0 {
		d.WaitTimeout = 100 * time.Millisecond
	}
	if d.StallAfter <= 0 {
		d.StallAfter = max(3*d.Interval, 2*time.Second)
	}
	return d
}
