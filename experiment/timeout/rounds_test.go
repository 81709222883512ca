package timeout_test

import (
	"slices"
	"testing"
	"time"

	"github.com/pipebench/pipebench/experiment/timeout"
)

// TestRounds: three rounds are three whole measurements of every point,
// each announced, none waking early; the result's points are the medians
// of the repetitions' and count all their samples.
func TestRounds(t *testing.T) {
	var rounds []int
	cfg := timeout.Config{Mechanisms: []timeout.Mechanism{timeout.EpollPwait2, timeout.Timerfd}, Timeouts: []time.Duration{50 * time.Microsecond, 200 * time.Microsecond},
		Samples: 4, Rounds: 3}
	res := measure(t, cfg, timeout.Observers{OnRound: func(r int) { rounds = append(rounds, r) }})
	if res.Rounds != 3 || len(res.Repetitions) != 3 || !slices.Equal(rounds, []int{1, 2, 3}) {
		t.Fatalf("rounds %d, %d repetitions, OnRound %v; want 3, 3, [1 2 3]", res.Rounds, len(res.Repetitions), rounds)
	}
	for i, rep := range res.Repetitions {
		if rep.Round != i+1 || len(rep.Points) != 4 || rep.Interrupted {
			t.Errorf("repetition %d: round %d, %d points, interrupted %v", i, rep.Round, len(rep.Points), rep.Interrupted)
		}
		for _, p := range rep.Points {
			if p.Samples != 4 || p.Min < 0 {
				t.Errorf("round %d, %v %v: %d samples, min %v", rep.Round, p.Mechanism, p.Requested, p.Samples, p.Min)
			}
		}
	}
	want := timeout.MedianPoints(res.Repetitions)
	for i, p := range res.Points {
		if p.Samples != 12 || p.P50 != want[i].P50 || p.Max != want[i].Max || p.Mechanism != cfg.Mechanisms[i/2] {
			t.Errorf("point %d: %+v, want 12 samples and the medians %+v", i, p, want[i])
		}
	}
}

// TestMedianPoints: the medians of known repetitions, odd and even in
// number, a repetition without samples of a point left out of it.
func TestMedianPoints(t *testing.T) {
	us := time.Microsecond
	pt := func(k time.Duration, samples, interrupted int) timeout.Point {
		return timeout.Point{Mechanism: timeout.Ppoll, Requested: 100 * us, Samples: samples, Interrupted: interrupted,
			Min: k * us, P50: 2 * k * us, P99: 5 * k * us, Max: 9 * k * us, Mean: 3 * k * us}
	}
	rep := func(r int, ps ...timeout.Point) timeout.Repetition { return timeout.Repetition{Round: r, Points: ps} }
	reps := []timeout.Repetition{rep(1, pt(5, 10, 0), pt(1, 10, 0)), rep(2, pt(1, 10, 1), pt(3, 10, 0)), rep(3, pt(3, 10, 2), pt(0, 0, 4))}
	got := timeout.MedianPoints(reps)
	want := []timeout.Point{
		{Mechanism: timeout.Ppoll, Requested: 100 * us, Samples: 30, Interrupted: 3, Min: 3 * us, P50: 6 * us, P99: 15 * us, Max: 27 * us, Mean: 9 * us},
		// The third repetition took no sample here: the median of 1 and 3.
		{Mechanism: timeout.Ppoll, Requested: 100 * us, Samples: 20, Interrupted: 4, Min: 2 * us, P50: 4 * us, P99: 10 * us, Max: 18 * us, Mean: 6 * us},
	}
	for i := range want {
		if got[i].Mechanism != want[i].Mechanism || got[i].Requested != want[i].Requested || got[i].Samples != want[i].Samples ||
			got[i].Interrupted != want[i].Interrupted || got[i].Min != want[i].Min || got[i].P50 != want[i].P50 ||
			got[i].P99 != want[i].P99 || got[i].Max != want[i].Max || got[i].Mean != want[i].Mean {
			t.Errorf("point %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
	one := []timeout.Repetition{rep(1, pt(7, 10, 0))}
	if got := timeout.MedianPoints(one); len(got) != 1 || got[0].P50 != 14*us {
		t.Errorf("one repetition: %+v, want its own points", got)
	}
}
