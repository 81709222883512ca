package herd_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pipebench/pipebench/experiment/herd"
	"github.com/pipebench/pipebench/internal/fdlimit"
	"github.com/pipebench/pipebench/pipebench"
)

// checkSetting asserts what must hold of any setting that ran: every token
// accounted for, the waiters' counts adding up to the totals, and the
// counts consistent with each other.
func checkSetting(t *testing.T, c herd.Config, s *herd.Setting) {
	t.Helper()
	tk := s.Tokens
	if tk.Lost != 0 || tk.Sent != tk.Received+tk.Drained {
		t.Errorf("tokens do not add up: %+v", tk)
	}
	if tk.Received == 0 {
		t.Errorf("no token received: %+v", tk)
	}
	if len(s.Waiters) != c.Waiters {
		t.Fatalf("%d waiters reported, want %d", len(s.Waiters), c.Waiters)
	}
	var sum herd.Counts
	var usage pipebench.Usage
	ids := map[int]bool{}
	for _, w := range s.Waiters {
		sum = sum.Add(w.Counts)
		usage = usage.Add(w.Usage)
		if w.ID <= 0 || ids[w.ID] {
			t.Errorf("waiter ID %d is missing or repeated", w.ID)
		}
		ids[w.ID] = true
	}
	if sum != s.Totals {
		t.Errorf("waiters' counts add up to %+v, totals say %+v", sum, s.Totals)
	}
	if usage != s.WaiterUsage {
		t.Errorf("waiters' usage adds up to %+v, the setting says %+v", usage, s.WaiterUsage)
	}
	tt := s.Totals
	if tt.Tokens != tk.Received {
		t.Errorf("waiters got %d tokens, accounting says %d received", tt.Tokens, tk.Received)
	}
	if tt.Returns+tt.Timeouts > tt.Waits || tt.WastedReturns > tt.Returns || tt.Credits > tt.Returns {
		t.Errorf("inconsistent counts: %+v", tt)
	}
	if tt.Events > tt.Tokens || tt.Events == 0 {
		t.Errorf("%d events carried %d tokens", tt.Events, tt.Tokens)
	}
	if c.InFlight == 1 && tt.Events > tt.Returns {
		// With one token in flight a return can carry at most one.
		t.Errorf("%d events in %d returns with one token in flight", tt.Events, tt.Returns)
	}
	if s.Window.Tokens > tt.Tokens {
		t.Errorf("the window counts %d tokens, more than the whole run's %d", s.Window.Tokens, tt.Tokens)
	}
	var ivTokens uint64
	for _, iv := range s.Intervals {
		ivTokens += iv.Tokens
	}
	if ivTokens > s.Window.Tokens {
		t.Errorf("intervals count %d tokens, the window %d", ivTokens, s.Window.Tokens)
	}
}

func TestHerd(t *testing.T) {
	cases := []struct {
		name string
		cfg  herd.Config
	}{
		{"threads", herd.Config{Waiters: 6, Pipes: 8, InFlight: 1, Mode: herd.Threads}},
		{"processes", herd.Config{Waiters: 4, Pipes: 8, InFlight: 1, Mode: herd.Processes}},
		{"threads-many-tokens", herd.Config{Waiters: 3, Pipes: 4, InFlight: 16, Mode: herd.Threads}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := c.cfg
			cfg.Duration, cfg.Interval = 400*time.Millisecond, 100*time.Millisecond
			res, err := run(t, cfg, herd.Observers{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Settings) != 2 || res.Settings[0].Setup.Exclusive || !res.Settings[1].Setup.Exclusive {
				t.Fatalf("want EPOLLEXCLUSIVE off then on, got %d sides", len(res.Settings))
			}
			for i := range res.Settings {
				checkSetting(t, cfg, &res.Settings[i])
			}
			off, on := res.Settings[0].Figures(1), res.Settings[1].Figures(1)
			t.Logf("wake-ups per token off %.3g on %.3g (ratio %.3g); returns per token off %.3g on %.3g; sys per token off %.0fns on %.0fns",
				off.WakeupsPerToken, on.WakeupsPerToken, off.WakeupsPerToken/on.WakeupsPerToken,
				off.ReturnsPerToken, on.ReturnsPerToken, off.SystemPerToken, on.SystemPerToken)
			if cfg.InFlight == 1 && cfg.Waiters >= 4 && on.WakeupsPerToken > off.WakeupsPerToken {
				// A property of the kernel, not a speed: an exclusive
				// registration wakes one waiter where a plain one wakes all.
				t.Errorf("EPOLLEXCLUSIVE on woke waiters %.3g times per token, more than off (%.3g)", on.WakeupsPerToken, off.WakeupsPerToken)
			}
		})
	}
}

func TestOneSetting(t *testing.T) {
	cfg := herd.Config{Waiters: 2, Pipes: 3, InFlight: 2, Exclusive: []bool{true}, Duration: 150 * time.Millisecond, Interval: 50 * time.Millisecond}
	var setups []herd.Setup
	var intervals int
	var obs herd.Observers
	obs.OnSetup = func(s herd.Setup) { setups = append(setups, s) }
	obs.OnInterval = func(herd.Interval) { intervals++ }
	res, err := run(t, cfg, obs)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Settings) != 1 || !res.Settings[0].Setup.Exclusive {
		t.Fatalf("want one setting, exclusive on; got %+v", res.Settings)
	}
	if len(setups) != 1 || setups[0].Waiters != 2 || setups[0].GOMAXPROCS < 4 {
		t.Errorf("OnSetup saw %+v; want one call, 2 waiters, GOMAXPROCS at least waiters+2", setups)
	}
	if intervals != 3 || len(res.Settings[0].Intervals) != 3 {
		t.Errorf("%d OnInterval calls and %d intervals, want 3 of each", intervals, len(res.Settings[0].Intervals))
	}
	checkSetting(t, cfg, &res.Settings[0])
}

func TestStop(t *testing.T) {
	stop := make(chan struct{})
	close(stop)
	cfg := herd.Config{Waiters: 3, Pipes: 4, InFlight: 1, Duration: time.Minute, Interval: time.Second}
	t0 := time.Now()
	res, err := run(t, cfg, herd.Observers{Stop: stop})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(t0); took > 20*time.Second {
		t.Errorf("a stopped run took %v", took)
	}
	if len(res.Settings) != 1 || !res.Settings[0].Interrupted {
		t.Fatalf("want the first setting alone, interrupted; got %d sides", len(res.Settings))
	}
	if tk := res.Settings[0].Tokens; tk.Lost != 0 || tk.Sent != tk.Received+tk.Drained {
		t.Errorf("tokens do not add up after a stop: %+v", tk)
	}
}

func TestBadConfig(t *testing.T) {
	ok := herd.Config{Waiters: 2, Pipes: 2, InFlight: 1, Duration: time.Second, Interval: time.Second}
	cases := []struct {
		name, field string
		edit        func(*herd.Config)
	}{
		{"no-waiters", "Waiters", func(c *herd.Config) { c.Waiters = 0 }},
		{"too-many-waiters", "Waiters", func(c *herd.Config) { c.Waiters = herd.MaxWaiters + 1 }},
		{"no-pipes", "Pipes", func(c *herd.Config) { c.Pipes = 0 }},
		{"unbounded", "InFlight", func(c *herd.Config) { c.InFlight = 0 }},
		{"too-many-tokens", "InFlight", func(c *herd.Config) { c.InFlight = pipebench.MaxInFlight + 1 }},
		{"mode", "Mode", func(c *herd.Config) { c.Mode = 7 }},
		{"too-many-rounds", "Rounds", func(c *herd.Config) { c.Rounds = herd.MaxRounds + 1 }},
		{"no-duration", "Duration", func(c *herd.Config) { c.Duration = 0 }},
		{"long-interval", "Interval", func(c *herd.Config) { c.Interval = 2 * time.Second }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := ok
			c.edit(&cfg)
			_, err := herd.Prepare(cfg, nil)
			var ce *pipebench.ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("got %v, want a ConfigError", err)
			}
			if !strings.HasPrefix(err.Error(), c.field) {
				t.Errorf("%q does not name %s", err, c.field)
			}
		})
	}
}

func TestLimit(t *testing.T) {
	before, err := fdlimit.OpenFDs()
	if err != nil {
		t.Fatal(err)
	}
	limit, err := fdlimit.RaiseFileLimit()
	if err != nil {
		t.Fatal(err)
	}
	// Both ends of every pipe cannot fit under the limit, whatever it is.
	pipes := int(min(limit, 1<<30))
	cfg := herd.Config{Waiters: 2, Pipes: pipes, InFlight: 1, Duration: time.Second, Interval: time.Second}
	_, err = herd.Prepare(cfg, nil)
	var le *pipebench.LimitError
	if !errors.As(err, &le) || !strings.HasPrefix(err.Error(), fmt.Sprintf("Pipes %d ", pipes)) || le.Limit != limit || le.Need <= int(limit) {
		t.Fatalf("got %v, want a LimitError naming Pipes", err)
	}
	after, err := fdlimit.OpenFDs()
	if err != nil {
		t.Fatal(err)
	}
	if after > before {
		t.Errorf("a refused run left %d descriptors open", after-before)
	}
}

func TestParseMode(t *testing.T) {
	for _, m := range []herd.Mode{herd.Threads, herd.Processes} {
		got, err := herd.ParseMode(m.String())
		if err != nil || got != m {
			t.Errorf("ParseMode(%q) = %v, %v", m, got, err)
		}
	}
	if _, err := herd.ParseMode("fork"); err == nil || !strings.Contains(err.Error(), "threads or processes") {
		t.Errorf("ParseMode(fork) = %v, want an error naming the choices", err)
	}
}

// run prepares cfg, failing the test if it is refused, and runs it.
func run(t *testing.T, cfg herd.Config, obs herd.Observers) (*herd.Result, error) {
	t.Helper()
	p, err := herd.Prepare(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p.Run(obs)
}
