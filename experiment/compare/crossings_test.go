package compare_test

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/pipebench/pipebench/experiment/compare"
	"github.com/pipebench/pipebench/experiment/record"
	"github.com/pipebench/pipebench/experiment/sweep"
	cmpstat "github.com/pipebench/pipebench/stats/compare"
)

// jitter is each round's noise, of mean 0: five rounds.
var jitter = []float64{-2, -1, 0, 1, 2}

// curves are a sweep's two backends: poll at 1M evts/sec at every pipe
// count, epoll at 1M times sqrt(pipes/x0) times exp(noise times the
// round's jitter), so that the log ratio of epoll to poll is linear in
// log pipes, its mean 0 at x0 exactly: epoll overtakes poll at x0.
type curves struct {
	x0, noise float64
}

func (c curves) evts(backend string, pipes, round int) float64 {
	if backend == "poll" {
		return 1e6
	}
	return 1e6 * math.Sqrt(float64(pipes)/c.x0) * math.Exp(c.noise*jitter[(round-1)%len(jitter)])
}

// grid is the pipe counts most records here are swept on.
var grid = []int{2, 4, 8, 16, 32, 64}

// sweepRecord is a record of a sweep of backends on pipes, -l 1, rounds
// rounds, each point's evts/sec from evts; with the points added, as
// -refine adds them.
func sweepRecord(t *testing.T, backends []string, pipes []int, rounds int, evts func(string, int, int) float64, added ...sweep.Key) *compare.Loaded {
	t.Helper()
	r := sweep.Result{Grid: sweep.Grid{Backends: backends, Pipes: pipes, InFlight: []int{1}}, Rounds: rounds}
	if len(added) > 0 {
		r.Refine = &sweep.Refine{Factor: 2, Budget: len(added), Added: added}
	}
	for round := 1; round <= rounds; round++ {
		for _, k := range r.Keys() {
			p := sweep.Point{Key: k, Round: round, EventsPerSec: evts(k.Backend, k.Pipes, round)}
			if rounds == 1 {
				p.Round = 0
			}
			r.Points = append(r.Points, p)
		}
	}
	rec := struct {
		record.Head
		sweep.Result
	}{record.Head{Format: record.Format, FormatVersion: record.Version, Command: "sweep"}, r}
	return readBack(t, "sweep.json", rec)
}

// readBack is the record rec written as JSON and read back as if from
// path.
func readBack(t *testing.T, path string, rec any) *compare.Loaded {
	t.Helper()
	var b bytes.Buffer
	if err := record.WriteJSON(&b, rec); err != nil {
		t.Fatal(err)
	}
	l, err := compare.ParseRecord(path, b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// compareSides compares the sides' records and returns the comparison.
func compareSides(t *testing.T, sides ...[]*compare.Loaded) *compare.Comparison {
	t.Helper()
	c, err := compare.New(record.Head{}, sides, compare.Options{Floor: cmpstat.DefaultFloor})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// theCrossing is the one crossing of the one pair of a comparison of two
// sides.
func theCrossing(t *testing.T, c *compare.Comparison) compare.CrossChange {
	t.Helper()
	if len(c.Crossings) != 1 || len(c.Crossings[0].Pairs) != 1 || len(c.Crossings[0].Pairs[0].Crossings) != 1 {
		t.Fatalf("crossings %+v: want one pair with one crossing", c.Crossings)
	}
	return c.Crossings[0].Pairs[0].Crossings[0]
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

// Two records whose curves cross at known pipe counts: each side's
// crossing found where it is, judged by its interval against the other's,
// whichever order the records list their backends in. The JSON holds it.
func TestCrossingsMovedOrNot(t *testing.T) {
	a := sweepRecord(t, []string{"epoll", "poll"}, grid, 5, curves{5.66, 0.01}.evts)
	for _, c := range []struct {
		x0   float64
		want compare.CrossVerdict
	}{{22.6, compare.CrossMoved}, {5.9, compare.CrossSame}, {5.66, compare.CrossSame}} {
		b := sweepRecord(t, []string{"poll", "epoll"}, grid, 5, curves{c.x0, 0.01}.evts)
		x := theCrossing(t, compareSides(t, []*compare.Loaded{a}, []*compare.Loaded{b}))
		if x.Verdict != c.want || x.Over.Backend != "epoll" || x.Under.Backend != "poll" {
			t.Errorf("x0 5.66 -> %g: %s over %s %s, want epoll over poll %s", c.x0, x.Over, x.Under, x.Verdict, c.want)
		}
		if x.Base == nil || x.Side == nil || !near(x.Base.At, 5.66) || !near(x.Side.At, c.x0) || !x.Base.Interval || !x.Side.Interval {
			t.Errorf("x0 5.66 -> %g: crossings %+v and %+v, want them at 5.66 and %g, with intervals", c.x0, x.Base, x.Side, c.x0)
		}
	}
	b := sweepRecord(t, []string{"epoll", "poll"}, grid, 5, curves{22.6, 0.01}.evts)
	var out bytes.Buffer
	if err := compare.Write(&out, "json", compareSides(t, []*compare.Loaded{a}, []*compare.Loaded{b})); err != nil {
		t.Fatal(err)
	}
	var j struct {
		Crossings []struct {
			Pairs []struct {
				Pipes     []int `json:"pipes"`
				Crossings []struct {
					Base    struct{ At float64 }
					Side    struct{ At float64 }
					Verdict string `json:"verdict"`
				} `json:"crossings"`
			} `json:"pairs"`
		} `json:"crossings"`
	}
	if err := json.Unmarshal(out.Bytes(), &j); err != nil {
		t.Fatal(err)
	}
	if len(j.Crossings) != 1 || len(j.Crossings[0].Pairs) != 1 || len(j.Crossings[0].Pairs[0].Crossings) != 1 ||
		j.Crossings[0].Pairs[0].Crossings[0].Verdict != "moved" || !near(j.Crossings[0].Pairs[0].Crossings[0].Side.At, 22.6) {
		t.Errorf("the JSON's crossings %+v: want one, moved to 22.6", j.Crossings)
	}
}

// A crossing one side has and the other not: appeared or vanished when
// the other side's order of the curves at its bracket's ends is known
// and against it; cannot tell when a crossing is not resolved, or that
// order is not known.
func TestCrossingsOneSide(t *testing.T) {
	ahead := sweepRecord(t, []string{"epoll", "poll"}, grid, 5, curves{1, 0.01}.evts) // epoll ahead from 2 pipes
	crosses := sweepRecord(t, []string{"epoll", "poll"}, grid, 5, curves{11.3, 0.01}.evts)
	noisy := sweepRecord(t, []string{"epoll", "poll"}, grid, 5, curves{11.3, 0.3}.evts)
	unknown := sweepRecord(t, []string{"epoll", "poll"}, grid, 5, curves{1, 0.5}.evts) // epoll ahead, not resolved at 8
	once := sweepRecord(t, []string{"epoll", "poll"}, grid, 1, curves{11.3, 0}.evts)
	for _, c := range []struct {
		name string
		a, b *compare.Loaded
		want compare.CrossVerdict
		why  string
	}{
		{"appeared", ahead, crosses, compare.CrossAppeared, ""},
		{"vanished", crosses, ahead, compare.CrossVanished, ""},
		{"not resolved", crosses, noisy, compare.CrossUnknown, "not resolved in B"},
		{"not resolved, other side none", ahead, noisy, compare.CrossUnknown, "not resolved in B"},
		{"order not known", unknown, crosses, compare.CrossUnknown, "A's order at 8 and 16 pipes not resolved"},
		{"one run a point", once, crosses, compare.CrossUnknown, "one run a point in A: no interval"},
	} {
		t.Run(c.name, func(t *testing.T) {
			x := theCrossing(t, compareSides(t, []*compare.Loaded{c.a}, []*compare.Loaded{c.b}))
			if x.Verdict != c.want || x.Why != c.why {
				t.Errorf("%s (%s), want %s (%s)", x.Verdict, x.Why, c.want, c.why)
			}
		})
	}
}

// Records of the same curves on different grids: each record's own
// crossing, interpolated across its own bracket, lies elsewhere (the log
// ratio is not linear in log pipes) with intervals apart; found again on
// the pipe counts both have, the two are one, and nothing moved.
func TestCrossingsDifferentGrids(t *testing.T) {
	bent := func(backend string, pipes, round int) float64 {
		if backend == "poll" {
			return 1e6
		}
		u := math.Log(float64(pipes) / 5.5)
		return 1e6 * math.Exp(0.5*u+2*u*u*u+0.001*jitter[round-1])
	}
	a := sweepRecord(t, []string{"epoll", "poll"}, grid, 5, bent)
	b := sweepRecord(t, []string{"epoll", "poll"}, []int{2, 3, 4, 5, 6, 8, 16, 32, 64}, 5, bent)
	own := func(l *compare.Loaded) sweep.Crossing {
		cs := sweep.FindCrossings(l.Sweep)
		if len(cs.Pairs) != 1 || len(cs.Pairs[0].Crossings) != 1 {
			t.Fatalf("crossings %+v: want one", cs)
		}
		return cs.Pairs[0].Crossings[0]
	}
	if oa, ob := own(a), own(b); !oa.Interval || !ob.Interval || oa.Lo <= ob.Hi && ob.Lo <= oa.Hi {
		t.Fatalf("own crossings %+v and %+v: want intervals apart, for the test to mean anything", oa, ob)
	}
	c := compareSides(t, []*compare.Loaded{a}, []*compare.Loaded{b})
	x := theCrossing(t, c)
	p := c.Crossings[0].Pairs[0]
	if x.Verdict != compare.CrossSame || x.Base.At != x.Side.At || x.Side.From != 4 || x.Side.To != 8 {
		t.Errorf("crossings %+v and %+v %s: want both at one place between 4 and 8 pipes, no move called", x.Base, x.Side, x.Verdict)
	}
	if jsonOf(t, p.Pipes) != "[2,4,8,16,32,64]" {
		t.Errorf("compared at %v pipes, want 2 to 64 as the first record has them", p.Pipes)
	}
	if lo := c.Crossings[0].LeftOut; len(lo) != 1 || lo[0].Record != "B" || jsonOf(t, lo[0].Pipes) != "[3,5,6]" {
		t.Errorf("left out %+v: want B's 3, 5 and 6 pipes", lo)
	}
}

// jsonOf is v as compact JSON.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// With two records a side, the crossings are judged over the sittings:
// records whose rounds agree closely but whose crossings lie apart are
// sittings that disagree, and a move between the sides is not called,
// where the same records one a side call it; sittings that agree call it.
func TestCrossingsOverSittings(t *testing.T) {
	rec := func(x0 float64) *compare.Loaded {
		return sweepRecord(t, []string{"epoll", "poll"}, grid, 5, curves{x0, 0.001}.evts)
	}
	a1, a2, b1, b2 := rec(5), rec(7), rec(9), rec(12)
	if x := theCrossing(t, compareSides(t, []*compare.Loaded{a1}, []*compare.Loaded{b1})); x.Verdict != compare.CrossMoved {
		t.Fatalf("one record a side: %s, want moved", x.Verdict)
	}
	c := compareSides(t, []*compare.Loaded{a1, a2}, []*compare.Loaded{b1, b2})
	if x := theCrossing(t, c); !c.Crossings[0].OverSittings || x.Verdict != compare.CrossUnknown || x.Why != "not resolved in A and B" {
		t.Errorf("over sittings %v: %s (%s), want cannot tell (not resolved in A and B)", c.Crossings[0].OverSittings, x.Verdict, x.Why)
	}
	c = compareSides(t, []*compare.Loaded{rec(5.6), rec(5.7)}, []*compare.Loaded{rec(22.4), rec(22.8)})
	x := theCrossing(t, c)
	if x.Verdict != compare.CrossMoved || x.Base.Before.N != 2 || !near(x.Base.At, math.Sqrt(5.6*5.7)) {
		t.Errorf("sittings that agree: %s, %+v: want moved, from the geometric middle of 5.6 and 5.7 over 2 sittings", x.Verdict, x.Base)
	}
}

// Comparisons of other records, and of one sweep's flag's values (-by),
// have no crossings block.
func TestCrossingsOnlyOfSweepSides(t *testing.T) {
	a := sweepRecord(t, []string{"epoll", "poll"}, grid, 5, curves{5.66, 0.01}.evts)
	c, err := compare.New(record.Head{}, [][]*compare.Loaded{{a}}, compare.Options{By: "b", Floor: cmpstat.DefaultFloor})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Crossings) != 0 {
		t.Errorf("-by b: crossings %+v", c.Crossings)
	}
	n := func(x uint64) *uint64 { return &x }
	r := haltsRecord(t, []*uint64{n(1), n(2), n(3)})
	if c := compareSides(t, []*compare.Loaded{r}, []*compare.Loaded{r}); len(c.Crossings) != 0 {
		t.Errorf("run records: crossings %+v", c.Crossings)
	}
}

// A point -refine added stands among the grid's, by its pipe count, in
// the tables as in the sweep's own.
func TestRefinedPointsInOrder(t *testing.T) {
	added := []sweep.Key{{Backend: "epoll", Pipes: 4, InFlight: 1}, {Backend: "poll", Pipes: 4, InFlight: 1}}
	l := sweepRecord(t, []string{"epoll", "poll"}, []int{2, 8}, 2, curves{5.66, 0.01}.evts, added...)
	var got []string
	for _, s := range l.Configs {
		got = append(got, s.Label)
	}
	want := "-b epoll -n 2 -l 1, -b poll -n 2 -l 1, -b epoll -n 4 -l 1, -b poll -n 4 -l 1, -b epoll -n 8 -l 1, -b poll -n 8 -l 1"
	if strings.Join(got, ", ") != want {
		t.Errorf("configurations %q, want %s", got, want)
	}
}

// The text has a line per crossing after the tables (a list item in
// markdown), and no block when no pair crosses on either side; the JSON
// holds the pairs all the same.
func TestCrossingsText(t *testing.T) {
	a := sweepRecord(t, []string{"epoll", "poll"}, grid, 5, curves{5.66, 0.01}.evts)
	b := sweepRecord(t, []string{"epoll", "poll"}, grid, 5, curves{22.6, 0.01}.evts)
	write := func(format string, c *compare.Comparison) string {
		var out bytes.Buffer
		if err := compare.Write(&out, format, c); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	c := compareSides(t, []*compare.Loaded{a}, []*compare.Loaded{b})
	for format, want := range map[string]string{
		"text":     "\n  epoll over poll: 5.7 (5.4-5.9) -> 23 (22-24) pipes: moved\n",
		"markdown": "\n- epoll over poll: 5.7 (5.4-5.9) -> 23 (22-24) pipes: moved\n",
	} {
		if got := write(format, c); !strings.Contains(got, want) || !strings.Contains(got, "\ncrossings, B against A, ") {
			t.Errorf("%s: no crossings block with %q:\n%s", format, want, got)
		}
	}
	// select, at a tenth of poll, crosses neither.
	tenth := func(x0 float64) func(string, int, int) float64 {
		return func(backend string, pipes, round int) float64 {
			if backend == "select" {
				return 1e5
			}
			return curves{x0, 0.01}.evts(backend, pipes, round)
		}
	}
	three := []string{"epoll", "poll", "select"}
	c = compareSides(t, []*compare.Loaded{sweepRecord(t, three, grid, 5, tenth(5.66))}, []*compare.Loaded{sweepRecord(t, three, grid, 5, tenth(22.6))})
	if got, want := write("text", c), "\n  no crossing on either side from 2 to 64 pipes: epoll and select; poll and select\n"; !strings.Contains(got, want) {
		t.Errorf("no line %q:\n%s", want, got)
	}
	ahead := sweepRecord(t, []string{"epoll", "poll"}, grid, 5, curves{1, 0.01}.evts)
	got := write("text", compareSides(t, []*compare.Loaded{a}, []*compare.Loaded{b}, []*compare.Loaded{ahead}))
	for _, want := range []string{"\ncrossings, B against A, ", "\ncrossings, C against A, ",
		"\n  epoll over poll: 5.7 (5.4-5.9) pipes -> none: vanished in C\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("three sides: no %q:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "\nmoved: "); n != 1 {
		t.Errorf("three sides: the verdicts told %d times, want once:\n%s", n, got)
	}
	c = compareSides(t, []*compare.Loaded{ahead}, []*compare.Loaded{ahead})
	if got := write("text", c); strings.Contains(got, "crossings") {
		t.Errorf("no pair crosses, yet:\n%s", got)
	}
	if len(c.Crossings) != 1 || len(c.Crossings[0].Pairs) != 1 || len(c.Crossings[0].Pairs[0].Crossings) != 0 {
		t.Errorf("crossings %+v: want the pair, without a crossing", c.Crossings)
	}
}
