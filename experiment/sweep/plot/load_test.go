package plot

import (
	"bytes"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pipebench/pipebench/experiment/sweep"
	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/pipebench/summary"
)

// openLoop is an open-loop sweep of uring and epoll at three rates: its
// rates shares of a measured saturation (uring 400k, epoll 300k) when
// shares is set, tokens per second otherwise; latency climbs with the
// load, the last rate past saturation, and without latency when noLatency.
func openLoop(shares, noLatency bool) *sweep.Result {
	r := &sweep.Result{
		Grid:     sweep.Grid{Backends: []string{"uring", "epoll"}, Pipes: []int{1000}, InFlight: []int{0}, OfSaturation: shares},
		Settings: sweep.Settings{Duration: "3s", Interval: "500ms", Writer: "thread"},
	}
	sat := map[string]float64{"uring": 400000, "epoll": 300000}
	r.Grid.Rates = []float64{100000, 200000, 500000}
	if shares {
		r.Grid.Rates = []float64{0.25, 0.5, 1.25}
		for _, b := range r.Grid.Backends {
			r.Saturation = append(r.Saturation, sweep.Point{Key: sweep.Key{Backend: b, Pipes: 1000}, TokensPerSec: sat[b]})
		}
	}
	for _, k := range r.Grid.Keys() {
		offered := k.Rate
		if shares {
			offered = sweep.SaturationRate(k.Rate, sat[k.Backend])
		}
		p := sweep.Point{Key: k,
			Pacing: &pipebench.Pacing{Rate: offered, ReceivedRate: min(offered, sat[k.Backend]), Saturated: offered > sat[k.Backend]},
			Costs:  []summary.Cost{{Who: "process", CPUPerEvent: 4000 - offered/200}}}
		if !noLatency {
			p.Latency = &summary.Latency{P50: offered / 10, P99: offered / 2, P999: offered}
		}
		r.Points = append(r.Points, p)
	}
	return r
}

// TestFromLoad: a curve per backend of CPU per event and three of latency
// (p50, p99, p99.9) in the backend's colour group, against the offered
// load in tokens/s, the figures in µs; each backend's saturation marked
// where it was measured, or else at its first rate past saturation.
func TestFromLoad(t *testing.T) {
	f := FromLoad(openLoop(true, false))
	var names []string
	for _, s := range f.Latency {
		names = append(names, s.Name)
	}
	if want := []string{"uring p50", "uring p99", "uring p99.9", "epoll p50", "epoll p99", "epoll p99.9"}; !reflect.DeepEqual(names, want) {
		t.Errorf("latency curves %q, want %q", names, want)
	}
	u := f.Latency[1]
	if u.Group != "uring" || u.Variant != 1 || !reflect.DeepEqual(u.X, []float64{100000, 200000, 500000}) || u.Y[2] != 250 {
		t.Errorf("uring p99 %+v: want the uring group's second curve, x the offered tokens/s, y in µs", u)
	}
	if len(f.CPU) != 2 || f.CPU[1].Name != "epoll cpu/evt" || !reflect.DeepEqual(f.CPU[1].Y, []float64{3.625, 3.25, 2.125}) {
		t.Errorf("cpu curves %+v", f.CPU)
	}
	if len(f.Saturation) != 2 || f.Saturation[0].X != 400000 || !f.Saturation[0].Resolved ||
		f.Saturation[1].Label != "epoll saturates at 300k (unbounded writer)" {
		t.Errorf("marks %+v: want each measured saturation", f.Saturation)
	}
	f = FromLoad(openLoop(false, true))
	if len(f.Latency) != 0 || len(f.Saturation) != 2 || f.Saturation[0].X != 500000 || f.Saturation[0].Resolved ||
		f.Saturation[1].Label != "uring 500k, epoll 500k: past saturation" {
		t.Errorf("latency %d curves, marks %+v: want none, and each first rate past saturation, dotted", len(f.Latency), f.Saturation)
	}
}

// TestSaturationLabels: saturations within 3% of the largest offered load
// (500k) of each other share one label naming both, by the rightmost of
// their lines, a line each; further apart, each keeps its own label.
func TestSaturationLabels(t *testing.T) {
	for _, c := range []struct {
		epoll float64 // uring's is 400k
		want  []Mark
	}{
		{390000, []Mark{{X: 400000, Resolved: true, Label: "epoll 390k, uring 400k: saturation (unbounded writer)"}, {X: 390000, Resolved: true}}},
		{415000, []Mark{{X: 400000, Resolved: true}, {X: 415000, Resolved: true, Label: "uring 400k, epoll 415k: saturation (unbounded writer)"}}},
		{384000, []Mark{{X: 400000, Resolved: true, Label: "uring saturates at 400k (unbounded writer)"},
			{X: 384000, Resolved: true, Label: "epoll saturates at 384k (unbounded writer)"}}},
		{300000, []Mark{{X: 400000, Resolved: true, Label: "uring saturates at 400k (unbounded writer)"},
			{X: 300000, Resolved: true, Label: "epoll saturates at 300k (unbounded writer)"}}},
	} {
		r := openLoop(true, false)
		r.Saturation[1].TokensPerSec = c.epoll
		if got := FromLoad(r).Saturation; !reflect.DeepEqual(got, c.want) {
			t.Errorf("epoll saturating at %g: marks %+v, want %+v", c.epoll, got, c.want)
		}
	}
	near := []saturation{{"epoll", 1.8013e6, true}, {"uring", 1.812e6, true}, {"poll", 1.79e6, false}}
	if got, want := saturationMarks(near, 2e6)[1].Label, "epoll 1.80M, uring 1.81M: saturation (unbounded writer); poll 1.79M: past saturation"; got != want {
		t.Errorf("label %q, want %q", got, want)
	}
}

// TestSaveLoad: the SVG holds both panels, every curve, the saturation
// marks and their legend, the latency panel's legend at its top left
// (above the lightest loads' latencies); without latency, the CPU panel
// alone; with nothing measured, an error.
func TestSaveLoad(t *testing.T) {
	ps, err := FromLoad(openLoop(true, false)).panels()
	if err != nil || len(ps) != 2 || !ps[0].Legend.Top || !ps[0].Legend.Left {
		t.Errorf("panels %d (%v): want the latency legend at the top left", len(ps), err)
	}
	var b bytes.Buffer
	if err := Write(&b, "svg", FromLoad(openLoop(true, false))); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	for _, s := range []string{"offered load (tokens/s)", "latency (µs, log)", "CPU per event of the run", "uring p99.9", "epoll cpu/evt",
		"uring saturates at 400k (unbounded writer)", "saturation (dotted: the first rate past it)", "400k"} {
		if !strings.Contains(svg, s) {
			t.Errorf("svg lacks %q", s)
		}
	}
	b.Reset()
	if err := Write(&b, "svg", FromLoad(openLoop(false, true))); err != nil {
		t.Fatal(err)
	}
	if svg := b.String(); strings.Contains(svg, "latency (µs") || !strings.Contains(svg, "uring 500k, epoll 500k: past saturation") {
		t.Errorf("without latency: a latency panel, or no mark")
	}
	empty := openLoop(true, false)
	empty.Points = nil
	err = Save(filepath.Join(t.TempDir(), "a.png"), FromLoad(empty))
	if err == nil || !strings.Contains(err.Error(), "nothing to plot") {
		t.Errorf("error %v, want nothing to plot", err)
	}
}
