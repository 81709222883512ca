package compare

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Benjamini-Hochberg's adjusted p-values on a case worked by hand: sorted
// 0.005, 0.01, 0.03, 0.04 of four are multiplied by 4/1, 4/2, 4/3, 4/4
// (0.02, 0.02, 0.04, 0.04), each kept no larger than those after it. NaN
// is no test and not counted.
func TestAdjustKnownAnswer(t *testing.T) {
	got := Adjust([]float64{0.01, 0.04, math.NaN(), 0.03, 0.005})
	want := []float64{0.02, 0.04, math.NaN(), 0.04, 0.02}
	for i := range want {
		if math.IsNaN(want[i]) != math.IsNaN(got[i]) || !math.IsNaN(want[i]) && !near(got[i], want[i]) {
			t.Errorf("adjusted %v, want %v", got, want)
			break
		}
	}
	// 0.5 and 0.9 of two: 1 and 0.9, kept rising: 0.9 and 0.9.
	if got := Adjust([]float64{0.5, 0.9}); !near(got[0], 0.9) || !near(got[1], 0.9) {
		t.Errorf("two: %v, want 0.9 and 0.9", got)
	}
}

// With no figure changed, the adjustment calls any of fifteen correlated
// figures in about one comparison in twenty: simulated A/A comparisons of
// fifteen figures sharing half their variance, 6 runs a side, U tests.
func TestAdjustAAFamily(t *testing.T) {
	const trials, figures = 400, 15
	rng := rand.New(rand.NewPCG(3, 3))
	any := 0
	for range trials {
		ps := make([]float64, figures)
		common := [2][6]float64{}
		for s := range common {
			for r := range common[s] {
				common[s][r] = rng.NormFloat64()
			}
		}
		for f := range ps {
			var a, b []float64
			for r := range 6 {
				a = append(a, 100*math.Exp(0.01*(common[0][r]+rng.NormFloat64())))
				b = append(b, 100*math.Exp(0.01*(common[1][r]+rng.NormFloat64())))
			}
			ps[f] = Compare(a, b, HigherIsBetter, 0).P
		}
		for _, p := range Adjust(ps) {
			if p < Alpha {
				any++
				break
			}
		}
	}
	if float64(any) > 0.08*trials {
		t.Errorf("A/A: some figure called in %d of %d comparisons, want about 5%%", any, trials)
	}
	t.Logf("A/A: some figure called in %d of %d comparisons", any, trials)
}

// The floor: a significant change no larger than it is "~", whatever its
// p (the -0.0% "better" of a figure that barely moved), and a larger one
// is called; Rejudge with a larger adjusted p takes the call back.
func TestFloorKeepsSmallChangesUncalled(t *testing.T) {
	a := []float64{100, 100.1, 100.2, 100.3, 100.4, 100.5}
	b := []float64{101, 101.1, 101.2, 101.3, 101.4, 101.5} // +1%, every b above every a
	if c := Compare(a, b, HigherIsBetter, 0.02); c.Verdict != Same || c.P >= Alpha {
		t.Errorf("+1%% under a 2%% floor: %q p=%v, want ~ with p < 0.05", c.Verdict, c.P)
	}
	c := Compare(a, b, HigherIsBetter, 0.005)
	if c.Verdict != Better {
		t.Errorf("+1%% over a 0.5%% floor: %q, want better", c.Verdict)
	}
	c.Rejudge(0.2, HigherIsBetter)
	if c.Verdict != Same || c.Adjusted != 0.2 {
		t.Errorf("rejudged at p 0.2: %q %v, want ~", c.Verdict, c.Adjusted)
	}
}

// Welch's t on a case with a published answer: 1, 2, 3 against 4, 5, 6
// gives t = 3.6742 on 4 degrees of freedom, p = 0.02131, and the 95%
// interval of the difference [0.7331, 5.2669] (R's t.test).
func TestWelchKnownAnswer(t *testing.T) {
	diff, lo, hi, p := welch([]float64{1, 2, 3}, []float64{4, 5, 6})
	if diff != 3 || math.Abs(p-0.02131) > 5e-5 || math.Abs(lo-0.7331) > 5e-4 || math.Abs(hi-5.2669) > 5e-4 {
		t.Errorf("diff %v [%v, %v] p %v", diff, lo, hi, p)
	}
	if _, _, _, p := welch([]float64{2, 2}, []float64{2, 2}); p != 1 {
		t.Errorf("equal constants: p %v, want 1", p)
	}
}

// CompareSittings works on the sittings' mean logs: two sittings a side
// whose means are e^0, e^0.02 and e^0.10, e^0.12 change by e^0.1 - 1, and
// their runs' own spread does not enter the test. One sitting is too few.
func TestCompareSittings(t *testing.T) {
	e := math.Exp
	a := [][]float64{{e(-0.01), e(0.01)}, {e(0.01), e(0.03)}}
	b := [][]float64{{e(0.09), e(0.11)}, {e(0.11), e(0.13)}}
	c := CompareSittings(a, b, HigherIsBetter, 0.02)
	if !near(c.Ratio, math.Expm1(0.1)) || c.K1 != 2 || c.N2 != 4 || c.Method != WelchT {
		t.Errorf("change %+v, want %v over 2 sittings", c, math.Expm1(0.1))
	}
	_, lo, hi, p := welch([]float64{0, 0.02}, []float64{0.1, 0.12})
	if !near(c.P, p) || !near(c.Lo, math.Expm1(lo)) || !near(c.Hi, math.Expm1(hi)) {
		t.Errorf("p %v [%v, %v], want Welch on the means: %v [%v, %v]", c.P, c.Lo, c.Hi, p, lo, hi)
	}
	// The floor is at least the sittings' own spread: sd of 0, 0.02 (and
	// of 0.1, 0.12) is 0.01414.
	if !near(c.Floor, 0.02) || CompareSittings(a, b, HigherIsBetter, 0).Floor < 0.0142 {
		t.Errorf("floor %v", c.Floor)
	}
	if c := CompareSittings(a[:1], b, HigherIsBetter, 0.02); c.Verdict != TooFew {
		t.Errorf("one sitting: %q, want too few", c.Verdict)
	}
	s := SummarizeSittings(a)
	if !near(s.Median, e(0.01)) || s.Sittings != 2 || s.N != 4 || !(s.Lo < s.Median && s.Median < s.Hi) {
		t.Errorf("summary %+v, want e^0.01 over 2 sittings", s)
	}
}

// Components on a balanced case worked by hand: sittings with log means
// 0, 1, 2 and runs 0.5 either side: mean squares within 0.5 and between
// 2, n0 = 2, so the between part is (2 - 0.5)/2 = 0.75.
func TestComponentsKnownAnswer(t *testing.T) {
	e := math.Exp
	side := [][]float64{{e(-0.5), e(0.5)}, {e(0.5), e(1.5)}, {e(1.5), e(2.5)}}
	b, w, ok := Components([][][]float64{side})
	if !ok || !near(b, 0.75) || !near(w, 0.5) {
		t.Errorf("between %v within %v (%v), want 0.75 and 0.5", b, w, ok)
	}
	// A second side shifted by any amount adds its own sittings, not the
	// shift: the same components.
	shifted := make([][]float64, len(side))
	for i, xs := range side {
		for _, x := range xs {
			shifted[i] = append(shifted[i], 3*x)
		}
	}
	if b2, w2, _ := Components([][][]float64{side, shifted}); !near(b2, 0.75) || !near(w2, 0.5) {
		t.Errorf("two sides: between %v within %v, want 0.75 and 0.5", b2, w2)
	}
	if _, _, ok := Components([][][]float64{{{1, 2}}}); ok {
		t.Error("one sitting has no between part")
	}
}

// simulate draws a side of k sittings of m runs, log-normal about
// centre, the sitting's offset of sd sb, the run's of sd sw.
func simulate(rng *rand.Rand, k, m int, centre, sb, sw float64) [][]float64 {
	side := make([][]float64, k)
	for i := range side {
		off := rng.NormFloat64() * sb
		for range m {
			side[i] = append(side[i], centre*math.Exp(off+rng.NormFloat64()*sw))
		}
	}
	return side
}

// The done-when of compare's verdicts, on simulated sittings with known
// between- and within-sitting spread: over many seeds, A/A comparisons are
// called better or worse on the figure at most 5% of the time, and a real
// 5% shift is called at least 80% of the time with the sittings and runs
// that Plan recommends from the true components.
func TestSimulatedSittingsDoneWhen(t *testing.T) {
	const trials = 1500
	for _, c := range []struct{ sb, sw float64 }{{0.01, 0.01}, {0.02, 0.005}, {0.005, 0.02}, {0.03, 0.01}} {
		need := Plan(c.sb*c.sb, c.sw*c.sw, 0.05, DefaultFloor, 1)
		if need.Sittings == 0 {
			t.Errorf("sittings spread %.1f%%, runs %.1f%%: no plan finds 5%%", 100*c.sb, 100*c.sw)
			continue
		}
		var aa, found int
		for seed := range uint64(trials) {
			rng := rand.New(rand.NewPCG(seed, 7))
			a := simulate(rng, need.Sittings, need.Runs, 1e6, c.sb, c.sw)
			a2 := simulate(rng, need.Sittings, need.Runs, 1e6, c.sb, c.sw)
			b := simulate(rng, need.Sittings, need.Runs, 1.05e6, c.sb, c.sw)
			if CompareSittings(a, a2, HigherIsBetter, DefaultFloor).Significant() {
				aa++
			}
			if CompareSittings(a, b, HigherIsBetter, DefaultFloor).Verdict == Better {
				found++
			}
		}
		t.Logf("sittings %.1f%% runs %.1f%%: plan %d x %d, A/A called %.1f%%, 5%% found %.1f%%",
			100*c.sb, 100*c.sw, need.Sittings, need.Runs, 100*float64(aa)/trials, 100*float64(found)/trials)
		if float64(aa) > 0.05*trials {
			t.Errorf("sittings %.1f%%, runs %.1f%%: A/A called %d of %d, over 5%%", 100*c.sb, 100*c.sw, aa, trials)
		}
		if float64(found) < 0.8*trials {
			t.Errorf("sittings %.1f%%, runs %.1f%%: a 5%% shift found %d of %d with %d x %d, under 80%%",
				100*c.sb, 100*c.sw, found, trials, need.Sittings, need.Runs)
		}
	}
}

// Plan on known cases: more between-sitting spread needs more sittings;
// runs per sitting follow sqrt(SittingCost * within / between); a change
// under the floor is never found.
func TestPlanKnownCases(t *testing.T) {
	small := Plan(0.005*0.005, 0.01*0.01, 0.05, DefaultFloor, 1)
	large := Plan(0.03*0.03, 0.01*0.01, 0.05, DefaultFloor, 1)
	if !(small.Sittings >= 2 && large.Sittings > small.Sittings) {
		t.Errorf("5%%: %d sittings at 0.5%% between, %d at 3%%: want more for more", small.Sittings, large.Sittings)
	}
	// sqrt(10 * 1 / 0.25) = 6.3: 6 runs; sqrt(10/9) = 1.05: at least 2.
	if small.Runs != 6 || large.Runs != 2 {
		t.Errorf("runs %d and %d, want 6 and 2", small.Runs, large.Runs)
	}
	if n := Plan(0.01*0.01, 0.01*0.01, 0.01, DefaultFloor, 1); n.Sittings != 0 {
		t.Errorf("1%% under a 2%% floor: %d sittings, want none", n.Sittings)
	}
}
