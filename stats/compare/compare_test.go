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
	c := Compare(a, b, HigherIsBetter)
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
	c := Compare(a, b, HigherIsBetter)
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
	if got := Compare(a, b, LowerIsBetter).Verdict; got != Worse {
		t.Errorf("lower is better: verdict %q, want worse", got)
	}
	if got := Compare(a, b, Neutral).Verdict; got != Changed {
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
	c := Compare(a, a, HigherIsBetter)
	if c.Verdict != Same || c.Ratio != 0 || c.Lo > 0 || c.Hi < 0 {
		t.Errorf("a against itself: %+v", c)
	}
	flat := []float64{3, 3, 3, 3, 3, 3}
	if c := Compare(flat, flat, LowerIsBetter); c.Verdict != Same || c.Ratio != 0 || c.Lo != 0 || c.Hi != 0 {
		t.Errorf("equal values: %+v", c)
	}
}

// Three repetitions can never be significant at 0.05 (the U test's least
// p-value is 0.1), and the comparison says so rather than "~".
func TestTooFewRepetitions(t *testing.T) {
	c := Compare([]float64{1, 2, 3}, []float64{10, 11, 12}, HigherIsBetter)
	if c.Verdict != TooFew || len(c.Notes) == 0 {
		t.Errorf("three each: %+v, want too few with a note", c)
	}
	if !math.IsNaN(c.Lo) || !math.IsNaN(c.Hi) {
		t.Errorf("three each have no 95%% interval of the shift, got [%v, %v]", c.Lo, c.Hi)
	}
	if c := Compare(nil, []float64{1}, HigherIsBetter); c.Verdict != TooFew {
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
	b, err = Compare([]float64{1}, []float64{2}, Neutral).MarshalJSON()
	if err != nil || !strings.Contains(string(b), `"ci_hi":null`) {
		t.Errorf("%s %v", b, err)
	}
}
