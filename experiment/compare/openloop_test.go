package compare_test

import (
	"slices"
	"testing"

	"github.com/pipebench/pipebench/experiment/compare"
	"github.com/pipebench/pipebench/experiment/record"
	"github.com/pipebench/pipebench/experiment/sweep"
	"github.com/pipebench/pipebench/pipebench"
)

// An open-loop sweep's points at two rates of one backend are two
// configurations, not one (their rate is what they are), and each is
// judged on its cost: cpu ns/token is the primary figure where the
// offered load sets evts/sec, and the idle share and the context
// switches per second are compared beside the per-event figures.
func TestOpenLoopPoints(t *testing.T) {
	idle := 0.8
	r := sweep.Result{Grid: sweep.Grid{Backends: []string{"uring"}, Pipes: []int{1000}, InFlight: []int{0},
		Rates: []float64{0.5, 0.9}, OfSaturation: true}, Rounds: 2}
	keys := r.Keys()
	if len(keys) != 2 {
		t.Fatalf("keys %v: want one per rate", keys)
	}
	for round := 1; round <= 2; round++ {
		for _, k := range keys {
			p := sweep.Point{Key: k, Round: round, EventsPerSec: 1e5 * k.Rate, CPUPerToken: 4000 / k.Rate,
				Pacing: &pipebench.Pacing{Rate: 1e5 * k.Rate}, IdleShare: &idle}
			r.Points = append(r.Points, p)
		}
	}
	rec := struct {
		record.Head
		sweep.Result
	}{record.Head{Format: record.Format, FormatVersion: record.Version, Command: "sweep"}, r}
	l := readBack(t, "load.json", rec)
	if len(l.Configs) != 2 {
		var labels []string
		for _, s := range l.Configs {
			labels = append(labels, s.Label)
		}
		t.Fatalf("configurations %q: want one per rate", labels)
	}
	want := []string{"-b uring -n 1000 -rate 50%", "-b uring -n 1000 -rate 90%"}
	for i, s := range l.Configs {
		if s.Label != want[i] || !s.Open {
			t.Errorf("configuration %d: %q open %v, want %q, open", i, s.Label, s.Open, want[i])
		}
		if got := s.Values["cpu ns/token"]; len(got) != 2 || got[0] != 4000/[]float64{0.5, 0.9}[i] {
			t.Errorf("%s: cpu ns/token %v: the rate's own values, two rounds", s.Label, got)
		}
		if got := s.Values["idle % of run's CPUs"]; len(got) != 2 || got[0] != 80 {
			t.Errorf("%s: idle %v, want 80 twice", s.Label, got)
		}
	}
	c := compareSides(t, []*compare.Loaded{l}, []*compare.Loaded{l})
	for _, cr := range c.Configs {
		if cr.Primary != "cpu ns/token" {
			t.Errorf("%s: primary %q, want cpu ns/token at a fixed load", cr.Label, cr.Primary)
		}
		if !slices.ContainsFunc(cr.Rows, func(r compare.Row) bool { return r.Metric == "idle % of run's CPUs" }) {
			t.Errorf("%s: no idle row", cr.Label)
		}
	}
}
