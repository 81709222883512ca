package plot

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pipebench/pipebench/experiment/sweep"
)

// handMade is a sweep of poll and epoll over three pipe counts, with
// samples per call that grows when vary is set; epoll at 10000 was skipped.
func handMade(vary bool, inflight ...int) *sweep.Result {
	if len(inflight) == 0 {
		inflight = []int{1}
	}
	r := &sweep.Result{
		Grid:     sweep.Grid{Backends: []string{"poll", "epoll"}, Pipes: []int{10, 1000, 10000}, InFlight: inflight},
		Settings: sweep.Settings{Duration: "3s", Interval: "500ms", Writer: "self"},
	}
	rates := map[string][]float64{"poll": {400000, 40000, 900}, "epoll": {570000, 540000, 0}}
	for _, l := range inflight {
		for _, b := range r.Grid.Backends {
			for i, n := range r.Grid.Pipes {
				k := sweep.Key{Backend: b, Pipes: n, InFlight: l}
				if rates[b][i] == 0 {
					r.Skipped = append(r.Skipped, sweep.Missing{Key: k, Reason: "limit"})
					continue
				}
				spc := 1.0
				if vary {
					spc = float64(1 + 10*i)
				}
				r.Points = append(r.Points, sweep.Point{Key: k, EventsPerSec: rates[b][i] * float64(l), SamplesPerCall: spc, SamplesApply: true})
			}
		}
	}
	return r
}

func pipetest() *sweep.Ref {
	return &sweep.Ref{Label: "pipetest 2002", XName: "pipes", Series: []sweep.RefSeries{
		{Name: "sys_epoll 0.14", X: []float64{10, 100, 16000}, Y: []float64{285510, 283948, 272928}},
		{Name: "poll()", X: []float64{10, 100, 16000}, Y: []float64{98469, 16514, 38}},
	}}
}

func TestFromSweep(t *testing.T) {
	f := FromSweep(handMade(false), nil)
	if len(f.Rates) != 2 || f.Rates[0].Name != "poll" || !reflect.DeepEqual(f.Rates[1].X, []float64{10, 1000}) {
		t.Errorf("rates %+v: want poll and epoll, epoll without its skipped point", f.Rates)
	}
	if f.Samples != nil {
		t.Errorf("samples per call is 1 everywhere: no second panel, got %+v", f.Samples)
	}
	if !strings.Contains(f.Title, "-l 1, writer self, -d 3s") {
		t.Errorf("title %q does not say how the sweep ran", f.Title)
	}

	f = FromSweep(handMade(true, 1, 10), pipetest())
	names := []string{}
	for _, s := range f.Rates {
		names = append(names, s.Name)
	}
	if want := []string{"poll -l 1", "epoll -l 1", "poll -l 10", "epoll -l 10"}; !reflect.DeepEqual(names, want) {
		t.Errorf("curves %v, want %v", names, want)
	}
	if len(f.Samples) != 4 {
		t.Errorf("%d samples curves, want 4", len(f.Samples))
	}
	if len(f.Reference) != 2 || f.Reference[1].Name != "pipetest 2002: poll()" {
		t.Errorf("reference %+v", f.Reference)
	}

	ref := pipetest()
	ref.XName = "connections"
	if got := FromSweep(handMade(false), ref).Reference[0].Name; got != "pipetest 2002: sys_epoll 0.14 (x = connections)" {
		t.Errorf("a reference with another x must say so: %q", got)
	}
}

func TestNormalise(t *testing.T) {
	n := Normalise(Series{Name: "poll()", X: []float64{0, 10, 100, 1000}, Y: []float64{13331, 98469, 16514, 0}})
	// x = 0 and y = 0 cannot sit on a log axis: the first drawable point is
	// (10, 98469).
	if n.Name != "poll() (÷ 98.5k at 10)" {
		t.Errorf("name %q", n.Name)
	}
	if !reflect.DeepEqual(n.X, []float64{10, 100}) || n.Y[0] != 1 || n.Y[1] != 16514.0/98469 {
		t.Errorf("normalised %v %v", n.X, n.Y)
	}
	if e := Normalise(Series{Name: "empty"}); len(e.X) != 0 {
		t.Errorf("empty series gained points: %+v", e)
	}
}

func TestShort(t *testing.T) {
	cases := map[float64]string{933: "933", 98469: "98.5k", 573338: "573k", 999999: "1M", 1169115: "1.17M", 999.7: "1k", 1.5: "1.5"}
	for v, want := range cases {
		if got := short(v); got != want {
			t.Errorf("short(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestLogTicks(t *testing.T) {
	labels := func(lo, hi float64) []string {
		var ls []string
		for _, tk := range (logTicks{}).Ticks(lo, hi) {
			if tk.Label != "" {
				ls = append(ls, tk.Label)
			}
		}
		return ls
	}
	if got, want := labels(7, 14000), []string{"10", "100", "1k", "10k"}; !reflect.DeepEqual(got, want) {
		t.Errorf("decades %v, want %v", got, want)
	}
	if got, want := labels(0.0003, 1.6), []string{"0.001", "0.01", "0.1", "1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("fractions %v, want %v", got, want)
	}
	if got, want := labels(0.7, 30), []string{"1", "2", "5", "10", "20"}; !reflect.DeepEqual(got, want) {
		t.Errorf("a short axis %v, want %v", got, want)
	}
	if got := (logTicks{}).Ticks(0, 10); got != nil {
		t.Errorf("a range from 0 cannot be logarithmic: %v", got)
	}
}

func TestFormatOf(t *testing.T) {
	for path, want := range map[string]string{"a.svg": "svg", "docs/scaling.PNG": "png", "a.pdf": "", "svg": ""} {
		got, err := FormatOf(path)
		if got != want || (want == "") != (err != nil) {
			t.Errorf("FormatOf(%q) = %q, %v; want %q", path, got, err, want)
		}
	}
}

func TestSave(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		file   string
		fig    Figure
		header string
		// texts the SVG must hold, and must not.
		has, hasNot []string
	}{
		{file: "plain.svg", fig: FromSweep(handMade(false), nil), header: "<?xml",
			has: []string{"evts/sec (log)", "pipes (log)", "poll", "epoll"}, hasNot: []string{"samples per call", "÷"}},
		{file: "ref.svg", fig: FromSweep(handMade(true), pipetest()), header: "<?xml",
			has: []string{"÷ 570k at 10", "pipetest 2002: poll() (÷ 98.5k at 10)", "samples per call (log)", "each curve divided by its first point"}},
		{file: "ref.png", fig: FromSweep(handMade(true), pipetest()), header: "\x89PNG\r\n\x1a\n"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			path := filepath.Join(dir, c.file)
			if err := Save(path, c.fig); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(b, []byte(c.header)) {
				t.Fatalf("%s starts %q, want %q", c.file, b[:min(len(b), 16)], c.header)
			}
			if len(b) < 1000 {
				t.Errorf("%s is only %d bytes", c.file, len(b))
			}
			for _, s := range c.has {
				if !bytes.Contains(b, []byte(s)) {
					t.Errorf("%s lacks %q", c.file, s)
				}
			}
			for _, s := range c.hasNot {
				if bytes.Contains(b, []byte(s)) {
					t.Errorf("%s holds %q", c.file, s)
				}
			}
		})
	}
}

func TestSaveErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, path string
		fig        Figure
		err        string
	}{
		{"nothing measured", filepath.Join(dir, "a.svg"), FromSweep(&sweep.Result{Grid: sweep.Grid{Backends: []string{"poll"}, Pipes: []int{10}, InFlight: []int{1}}}, nil), "nothing to plot"},
		{"bad extension", filepath.Join(dir, "a.pdf"), FromSweep(handMade(false), nil), "want a file name ending in .svg or .png"},
		{"no such directory", filepath.Join(dir, "missing", "a.svg"), FromSweep(handMade(false), nil), "write plot"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Save(c.path, c.fig)
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("error %v, want %q", err, c.err)
			}
		})
	}
}

// With several rounds a point has a run per round: the curve goes through
// their median once per pipe count, with a bar from the least to the
// most, and the picture draws the bars.
func TestFromSweepRounds(t *testing.T) {
	r := handMade(false)
	var more []sweep.Point
	for _, p := range r.Points {
		p.Round = 1
		lo, hi := p, p
		lo.Round, hi.Round = 2, 3
		lo.EventsPerSec, hi.EventsPerSec = p.EventsPerSec*0.9, p.EventsPerSec*1.2
		more = append(more, p, lo, hi)
	}
	r.Points, r.Rounds = more, 3
	f := FromSweep(r, nil)
	poll := f.Rates[0]
	if poll.Name != "poll" || !reflect.DeepEqual(poll.X, []float64{10, 1000, 10000}) {
		t.Fatalf("curve %+v: want one point per pipe count", poll)
	}
	if poll.Y[0] != 400000 || poll.Lo[0] != 360000 || poll.Hi[0] != 480000 {
		t.Errorf("10 pipes: median %v, bar %v..%v; want 400000, 360000..480000", poll.Y[0], poll.Lo[0], poll.Hi[0])
	}
	var b bytes.Buffer
	if err := Write(&b, "svg", f); err != nil {
		t.Fatal(err)
	}
	one := FromSweep(handMade(false), nil)
	var b1 bytes.Buffer
	if err := Write(&b1, "svg", one); err != nil {
		t.Fatal(err)
	}
	if strings.Count(b.String(), "<path") <= strings.Count(b1.String(), "<path") {
		t.Error("the rounds' bars are not drawn")
	}
}

// crossed is a sweep of three rounds in which epoll overtakes poll
// between 1 and 10 pipes (poll 600k falling as 1/sqrt(n), epoll 300k
// flat: at 4), the rounds 5% apart; at -l l, poll is l^2 times faster
// and epoll l times, so that they cross at 4 l^2.
func crossed(inflight ...int) *sweep.Result {
	r := &sweep.Result{
		Grid:     sweep.Grid{Backends: []string{"poll", "epoll"}, Pipes: []int{1, 10, 100}, InFlight: inflight},
		Settings: sweep.Settings{Duration: "3s", Interval: "500ms", Writer: "self"},
		Rounds:   3,
	}
	for round, drift := range []float64{1, 1.05, 0.95} {
		for _, k := range r.Grid.Keys() {
			v := 300000 * drift * float64(k.InFlight)
			if k.Backend == "poll" {
				v = 600000 * drift * float64(k.InFlight*k.InFlight) / math.Sqrt(float64(k.Pipes))
			}
			r.Points = append(r.Points, sweep.Point{Key: k, Round: round + 1, EventsPerSec: v, SamplesPerCall: 1, SamplesApply: true})
		}
	}
	r.Crossings = sweep.FindCrossings(r)
	return r
}

// TestCrossingMarks: each crossing is marked on the rates panel, with its
// interval, labelled by who overtakes whom and where; a crossing not
// resolved says so; with a reference, where every curve is divided by its
// first point, there is none.
func TestCrossingMarks(t *testing.T) {
	f := FromSweep(crossed(1), nil)
	if len(f.Crossings) != 1 {
		t.Fatalf("marks %+v: want one", f.Crossings)
	}
	m := f.Crossings[0]
	if m.Label != "epoll > poll at 4 (4-4)" || !m.Interval || !m.Resolved || math.Abs(m.X-4) > 1e-9 {
		t.Errorf("mark %+v: want epoll over poll at 4, resolved (the rounds' drift is paired away)", m)
	}
	r := crossed(1, 2)
	r.Points[0].EventsPerSec *= 1.5 // round 1 of poll at 1 pipe, -l 1
	r.Crossings = sweep.FindCrossings(r)
	f = FromSweep(r, nil)
	var labels []string
	for _, m := range f.Crossings {
		labels = append(labels, m.Label)
	}
	if len(labels) != 2 || !strings.HasPrefix(labels[0], "epoll -l 1 > poll -l 1 at ") || !strings.HasSuffix(labels[0], " (not resolved)") ||
		labels[1] != "epoll -l 2 > poll -l 2 at 16 (16-16)" {
		t.Errorf("labels %q: want -l 1's not resolved and -l 2's at 16", labels)
	}
	var b bytes.Buffer
	if err := Write(&b, "svg", f); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "epoll -l 2 &gt; poll -l 2 at 16") {
		t.Errorf("the svg lacks the mark's label")
	}
	b.Reset()
	if err := Write(&b, "svg", FromSweep(crossed(1), pipetest())); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "epoll &gt; poll") {
		t.Errorf("a plot of curves divided by their first points marks the crossings of evts/sec")
	}
	if len(FromSweep(handMade(false), nil).Crossings) != 0 {
		t.Errorf("a record without crossings has no marks")
	}
}
