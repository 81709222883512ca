package herd_test

import (
	"slices"
	"testing"
	"time"

	"github.com/pipebench/pipebench/experiment/herd"
	"github.com/pipebench/pipebench/stats"
)

// TestRounds: three rounds measure both settings three times on real
// pipes, each repetition accounting for its tokens and naming its round,
// in alternating order: off, on; on, off; off, on.
func TestRounds(t *testing.T) {
	cfg := herd.Config{Waiters: 3, Pipes: 4, InFlight: 1, Rounds: 3, Duration: 100 * time.Millisecond, Interval: 50 * time.Millisecond}
	var setups []herd.Setup
	var obs herd.Observers
	obs.OnSetup = func(s herd.Setup) { setups = append(setups, s) }
	res, err := run(t, cfg, obs)
	if err != nil {
		t.Fatal(err)
	}
	if res.Rounds != 3 || len(res.Settings) != 6 || len(setups) != 6 {
		t.Fatalf("rounds %d, %d settings, %d setups; want 3, 6, 6", res.Rounds, len(res.Settings), len(setups))
	}
	want := []struct {
		round int
		ex    bool
	}{{1, false}, {1, true}, {2, true}, {2, false}, {3, false}, {3, true}}
	for i, w := range want {
		s := &res.Settings[i]
		if s.Setup.Round != w.round || s.Setup.Exclusive != w.ex || setups[i].Round != w.round {
			t.Errorf("repetition %d: round %d exclusive %v, want round %d exclusive %v", i, s.Setup.Round, s.Setup.Exclusive, w.round, w.ex)
		}
		checkSetting(t, cfg, s)
	}
}

// TestOneRoundUnnumbered: a run of one round leaves its settings' round 0,
// as before rounds existed, and says it had one.
func TestOneRoundUnnumbered(t *testing.T) {
	cfg := herd.Config{Waiters: 2, Pipes: 2, InFlight: 1, Exclusive: []bool{false}, Duration: 50 * time.Millisecond, Interval: 50 * time.Millisecond}
	res, err := run(t, cfg, herd.Observers{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Rounds != 1 || len(res.Settings) != 1 || res.Settings[0].Setup.Round != 0 {
		t.Errorf("rounds %d, %d settings, round %d; want 1, 1, 0", res.Rounds, len(res.Settings), res.Settings[0].Setup.Round)
	}
}

func TestRoundOrder(t *testing.T) {
	both := []bool{false, true}
	for r, want := range [][]bool{{false, true}, {true, false}, {false, true}, {true, false}} {
		if got := herd.RoundOrder(both, r+1); !slices.Equal(got, want) {
			t.Errorf("round %d: %v, want %v", r+1, got, want)
		}
	}
	if got := herd.RoundOrder([]bool{true}, 2); !slices.Equal(got, []bool{true}) {
		t.Errorf("one setting, round 2: %v", got)
	}
}

// TestMedianFigures: the medians of known repetitions, odd and even in
// number, the evts/sec summary made of the repetitions' medians.
func TestMedianFigures(t *testing.T) {
	rep := func(evts, tps, wake, sys float64, lo, hi uint64) herd.Figures {
		return herd.Figures{EventsPerSec: stats.Sample{Median: evts}, TokensPerSec: tps, WakeupsPerToken: wake,
			ReturnsPerToken: wake / 2, WastedReturnsPerToken: wake / 4, WastedReturnShare: 0.5, WastedReadsPerToken: 1,
			WaiterSystem: sys, SystemPerToken: sys / 1000, UserPerToken: 7, WriterSystemPerToken: sys / 100, MinTokens: lo, MaxTokens: hi}
	}
	three := []herd.Figures{rep(300, 30, 3, 3000, 10, 20), rep(100, 10, 1, 1000, 30, 40), rep(200, 50, 8, 2000, 20, 90)}
	m := herd.MedianFigures(three)
	want := herd.Figures{TokensPerSec: 30, WakeupsPerToken: 3, ReturnsPerToken: 1.5, WastedReturnsPerToken: 0.75, WastedReturnShare: 0.5,
		WastedReadsPerToken: 1, WaiterSystem: 2000, SystemPerToken: 2, UserPerToken: 7, WriterSystemPerToken: 20, MinTokens: 20, MaxTokens: 40}
	e := m.EventsPerSec
	if e.N != 3 || e.Median != 200 || e.Min != 100 || e.Max != 300 {
		t.Errorf("evts/sec summary %+v: want n 3, median 200, min 100, max 300", e)
	}
	m.EventsPerSec = stats.Sample{}
	if m != want {
		t.Errorf("medians of three:\n got %+v\nwant %+v", m, want)
	}
	four := append(three, rep(400, 70, 9, 5000, 45, 41))
	m = herd.MedianFigures(four)
	// Sorted: tokens/sec 10 30 50 70, wake-ups 1 3 8 9, min 10 20 30 45.
	if m.EventsPerSec.Median != 250 || m.TokensPerSec != 40 || m.WakeupsPerToken != 5.5 || m.MinTokens != 25 || m.MaxTokens != 41 {
		t.Errorf("medians of four: evts %v tokens/sec %v wake-ups %v min %d max %d; want 250 40 5.5 25 41",
			m.EventsPerSec.Median, m.TokensPerSec, m.WakeupsPerToken, m.MinTokens, m.MaxTokens)
	}
	if (herd.MedianFigures(nil) != herd.Figures{}) {
		t.Error("no repetitions gave figures")
	}
}
