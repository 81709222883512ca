package timeout_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pipebench/pipebench/experiment/timeout"
	"github.com/pipebench/pipebench/pipebench"
)

func TestNeverEarly(t *testing.T) {
	cfg := timeout.Config{Timeouts: []time.Duration{50 * time.Microsecond, 300 * time.Microsecond, 1500 * time.Microsecond}, Samples: 8}
	res := measure(t, cfg, timeout.Observers{})
	if want := len(timeout.Mechanisms()) * len(cfg.Timeouts); len(res.Points) != want {
		t.Fatalf("%d points, want %d", len(res.Points), want)
	}
	for _, p := range res.Points {
		if p.Samples != cfg.Samples || len(p.Overshoots) != cfg.Samples {
			t.Errorf("%v %v: %d samples (%d kept), want %d", p.Mechanism, p.Requested, p.Samples, len(p.Overshoots), cfg.Samples)
		}
		// The kernel never wakes a timed wait early.
		for i, o := range p.Overshoots {
			if o < 0 {
				t.Errorf("%v %v: sample %d woke %v early", p.Mechanism, p.Requested, i, -o)
			}
		}
		if !(p.Min <= p.P50 && p.P50 <= p.P99 && p.P99 <= p.Max) || p.Min != slices.Min(p.Overshoots) || p.Max != slices.Max(p.Overshoots) {
			t.Errorf("%v %v: quantiles out of order: %+v", p.Mechanism, p.Requested, p)
		}
		if p.Mechanism == timeout.EpollWait && p.Requested == 50*time.Microsecond && p.Min < 950*time.Microsecond {
			// epoll_wait counts whole milliseconds: 50µs must become 1ms.
			t.Errorf("epoll_wait for 50µs overshot by only %v; its millisecond rounding should add at least 950µs", p.Min)
		}
	}
}

// TestFewInterrupted: sleeps of 5 ms, half the runtime's 10 ms preemption
// period, are rarely cut short, because the sleeper yields between samples.
// Without that yield a third to a half of them were (14 of 40, 96 of 200).
func TestFewInterrupted(t *testing.T) {
	ms := []timeout.Mechanism{timeout.Ppoll, timeout.EpollWait}
	res := measure(t, timeout.Config{Mechanisms: ms, Timeouts: []time.Duration{5 * time.Millisecond}, Samples: 40}, timeout.Observers{})
	for _, p := range res.Points {
		if p.Interrupted > p.Samples/4 {
			t.Errorf("%v %v: %d sleeps interrupted for %d samples", p.Mechanism, p.Requested, p.Interrupted, p.Samples)
		}
	}
}

func TestOrderAndSlack(t *testing.T) {
	ms := []timeout.Mechanism{timeout.Timerfd, timeout.Ppoll}
	ds := []time.Duration{200 * time.Microsecond, 20 * time.Microsecond}
	res := measure(t, timeout.Config{Mechanisms: ms, Timeouts: ds, Samples: 3, Slack: time.Microsecond}, timeout.Observers{})
	var got []string
	for _, p := range res.Points {
		got = append(got, p.Mechanism.String()+" "+p.Requested.String())
	}
	want := []string{"epoll+timerfd 200µs", "epoll+timerfd 20µs", "ppoll 200µs", "ppoll 20µs"}
	if !slices.Equal(got, want) {
		t.Errorf("points %q, want %q", got, want)
	}
	if res.TimerSlack != time.Microsecond {
		t.Errorf("timer slack %v during the run, want the 1µs asked for", res.TimerSlack)
	}
}

func TestStop(t *testing.T) {
	stop := make(chan struct{})
	close(stop)
	res := measure(t, timeout.Config{Samples: 1000}, timeout.Observers{Stop: stop})
	if !res.Interrupted || res.Points[0].Samples != 0 {
		t.Errorf("a stopped run went on: interrupted %v, %d samples", res.Interrupted, res.Points[0].Samples)
	}
}

func TestBadConfig(t *testing.T) {
	cases := []struct {
		name, field string
		cfg         timeout.Config
	}{
		{"zero-timeout", "Timeouts", timeout.Config{Timeouts: []time.Duration{0}}},
		{"long-timeout", "Timeouts", timeout.Config{Timeouts: []time.Duration{2 * time.Second}}},
		{"samples", "Samples", timeout.Config{Samples: -1}},
		{"mechanism", "Mechanisms", timeout.Config{Mechanisms: []timeout.Mechanism{42}}},
		{"slack", "Slack", timeout.Config{Slack: -time.Second}},
		{"rounds", "Rounds", timeout.Config{Rounds: timeout.MaxRounds + 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := timeout.Prepare(c.cfg, nil)
			var ce *pipebench.ConfigError
			if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), c.field) {
				t.Errorf("got %v, want a ConfigError naming %s", err, c.field)
			}
		})
	}
}

func TestParseMechanism(t *testing.T) {
	for _, m := range timeout.Mechanisms() {
		got, err := timeout.ParseMechanism(m.String())
		if err != nil || got != m {
			t.Errorf("ParseMechanism(%q) = %v, %v", m, got, err)
		}
	}
	if _, err := timeout.ParseMechanism("kqueue"); err == nil || !strings.Contains(err.Error(), "epoll_pwait2") {
		t.Errorf("ParseMechanism(kqueue) = %v, want an error listing the mechanisms", err)
	}
}

// measure prepares cfg and runs it, failing the test if either fails.
func measure(t *testing.T, cfg timeout.Config, obs timeout.Observers) *timeout.Result {
	t.Helper()
	p, err := timeout.Prepare(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Run(obs)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
