package compare

import (
	"math"
	"strings"
	"testing"

	"github.com/aclements/go-moremath/stats"
	"golang.org/x/perf/benchmath"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// The interval of the change on samples whose answer is worked out by
// hand: with five repetitions each the U distribution puts the 95% bounds
// at the third smallest and third largest of the 25 ratios b_j/a_i.
func TestShiftIntervalKnownAnswer(t *testing.T) {
	a := []float64{1, 2, 3, 4, 5}
	b := []float64{2, 4, 6, 8, 10}
	c := Compare(a, b, HigherIsBetter, 0)
	// Ratios 2j/i for i, j in 1..5: smallest .4, .5, .667; largest 10, 8, 6.
	if !near(c.Lo, 2.0/3-1) || !near(c.Hi, 5) {
		t.Errorf("interval [%v, %v], want [%v, 5]", c.Lo, c.Hi, 2.0/3-1)
	}
	if !near(c.Ratio, 1) {
		t.Errorf("change %v, want +100%% (medians 3 and 6)", c.Ratio)
	}
	if c.Lo > c.Ratio || c.Hi < c.Ratio {
		t.Errorf("the change %v is outside its own interval [%v, %v]", c.Ratio, c.Lo, c.Hi)
	}
}

// The p-value and the verdict are benchmath's, as benchstat prints them.
func TestPValueIsBenchmaths(t *testing.T) {
	a := []float64{100, 102, 98, 101, 99, 100}
	b := []float64{110, 111, 109, 112, 108, 110}
	c := Compare(a, b, HigherIsBetter, 0)
	th := benchmath.DefaultThresholds
	want := benchmath.AssumeNothing.Compare(benchmath.NewSample(append([]float64{}, a...), &th), benchmath.NewSample(append([]float64{}, b...), &th))
	if c.P != want.P {
		t.Errorf("p %v, benchmath %v", c.P, want.P)
	}
	u, err := stats.MannWhitneyUTest(a, b, stats.LocationDiffers)
	if err != nil || !near(u.P, c.P) {
		t.Errorf("p %v, the U test itself %v (%v)", c.P, u.P, err)
	}
	if c.Verdict != Better || !c.Significant() {
		t.Errorf("verdict %q for every b above every a: want better", c.Verdict)
	}
	if got := Compare(a, b, LowerIsBetter, 0).Verdict; got != Worse {
		t.Errorf("lower is better: verdict %q, want worse", got)
	}
	if got := Compare(a, b, Neutral, 0).Verdict; got != Changed {
		t.Errorf("neutral: verdict %q, want changed", got)
	}
	if !(c.Lo > 0.05 && c.Hi < 0.15 && c.Lo <= 0.1 && c.Hi >= 0.1) {
		t.Errorf("a 10%% shift: interval [%v, %v]", c.Lo, c.Hi)
	}
}

// A sample against itself: no change, not significant, the interval
// holds zero.
func TestIdenticalSamples(t *testing.T) {
	a := []float64{5, 7, 6, 9, 8, 6, 7}
	c := Compare(a, a, HigherIsBetter, 0)
	if c.Verdict != Same || c.Ratio != 0 || c.Lo > 0 || c.Hi < 0 {
		t.Errorf("a against itself: %+v", c)
	}
	flat := []float64{3, 3, 3, 3, 3, 3}
	if c := Compare(flat, flat, LowerIsBetter, 0); c.Verdict != Same || c.Ratio != 0 || c.Lo != 0 || c.Hi != 0 {
		t.Errorf("equal values: %+v", c)
	}
}

// Three repetitions can never be significant at 0.05 (the U test's least
// p-value is 0.1), and the comparison says so rather than "~".
func TestTooFewRepetitions(t *testing.T) {
	c := Compare([]float64{1, 2, 3}, []float64{10, 11, 12}, HigherIsBetter, 0)
	if c.Verdict != TooFew || len(c.Notes) == 0 {
		t.Errorf("three each: %+v, want too few with a note", c)
	}
	if !math.IsNaN(c.Lo) || !math.IsNaN(c.Hi) {
		t.Errorf("three each have no 95%% interval of the shift, got [%v, %v]", c.Lo, c.Hi)
	}
	if c := Compare(nil, []float64{1}, HigherIsBetter, 0); c.Verdict != TooFew {
		t.Errorf("an empty side: %+v", c)
	}
}

func TestSummarize(t *testing.T) {
	s := Summarize([]float64{5, 1, 4, 2, 3, 6, 7, 8, 9})
	if s.N != 9 || s.Median != 5 || s.Min != 1 || s.Max != 9 {
		t.Errorf("summary %+v", s)
	}
	// benchmath's interval of the median for nine values: the 2nd and 8th.
	if s.Lo != 2 || s.Hi != 8 {
		t.Errorf("interval [%v, %v], want [2, 8]", s.Lo, s.Hi)
	}
	if sp := s.Spread(); !near(sp, 0.6) {
		t.Errorf("spread %v, want 0.6", sp)
	}
	few := Summarize([]float64{1, 2})
	if !math.IsInf(few.Spread(), 1) || len(few.Warnings) == 0 {
		t.Errorf("two values: %+v, want no interval and a warning", few)
	}
}

func TestGeomean(t *testing.T) {
	if g := Geomean([]float64{1, 4, 16}); !near(g, 4) {
		t.Errorf("geomean %v, want 4", g)
	}
	if !math.IsNaN(Geomean([]float64{1, 0})) || !math.IsNaN(Geomean(nil)) {
		t.Error("a zero or nothing has no geometric mean")
	}
}

func TestJSONWritesNullForNoInterval(t *testing.T) {
	b, err := Summarize([]float64{1, 2}).MarshalJSON()
	if err != nil || !strings.Contains(string(b), `"ci_lo":null`) {
		t.Errorf("%s %v", b, err)
	}
	b, err = Compare([]float64{1}, []float64{2}, Neutral, 0).MarshalJSON()
	if err != nil || !strings.Contains(string(b), `"ci_hi":null`) {
		t.Errorf("%s %v", b, err)
	}
}

func TestRelativeSpread(t *testing.T) {
	// Median 100, absolute deviations 0 1 1 2 2: MAD 1.
	if s := RelativeSpread([]float64{98, 99, 100, 101, 102}); !near(s, 1.4826/100) {
		t.Errorf("spread %v, want %v", s, 1.4826/100)
	}
	if !math.IsNaN(RelativeSpread([]float64{1, 2})) {
		t.Error("two values have no spread to speak of")
	}
}

// Resolve on spreads whose answer is known: no spread needs the fewest
// runs the test allows (4, whose least p-value is 0.029); a 1% spread
// resolves a 5% change in 4 too; a change inside the noise needs more;
// and more spread never needs fewer runs. For a normal sample and a 2%
// change at 1% spread, the normal approximation's size is 2(1.96+0.84)^2/4
// = 4 a side; Student's t at so few runs, and the exact U test's steps,
// put the 80% point at 5 to 7 (the t test's power is 0.79 at 5, 0.88 at 6).
func TestResolveKnownSizes(t *testing.T) {
	if n := Resolve(0, 0.02, 0, 30, 1); n != 4 {
		t.Errorf("no spread: %d runs, want 4", n)
	}
	if n := Resolve(0.01, 0.05, 0, 30, 1); n != 4 {
		t.Errorf("1%% spread, 5%% change: %d, want 4", n)
	}
	n2 := Resolve(0.01, 0.02, 0, 30, 1)
	if n2 < 5 || n2 > 7 {
		t.Errorf("1%% spread, 2%% change: %d, want 5 to 7", n2)
	}
	// 5% spread, 2% change: the t test's size is 2(2.8)^2(2.5)^2 = 98.
	if n := Resolve(0.05, 0.02, 0, 40, 1); n != 0 {
		t.Errorf("5%% spread, 2%% change within 40 runs: %d, want 0 (not enough)", n)
	}
	wide := Resolve(0.03, 0.05, 0, 60, 1)
	narrow := Resolve(0.015, 0.05, 0, 60, 1)
	if !(narrow > 0 && wide > narrow) {
		t.Errorf("5%% change: %d runs at 1.5%% spread, %d at 3%%: want more for more spread", narrow, wide)
	}
	// t test: 2(2.8)^2(0.6)^2 = 5.6 at 3% spread -> about 6-8 with the U test.
	if wide < 5 || wide > 10 {
		t.Errorf("3%% spread, 5%% change: %d, want 5 to 10", wide)
	}
}
