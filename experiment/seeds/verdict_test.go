package seeds

import (
	"math"
	"strings"
	"testing"
)

// TestSideOf: the 5% band around 1, its edges included on the outside.
func TestSideOf(t *testing.T) {
	for _, c := range []struct {
		r    float64
		want Side
	}{
		{1, Level}, {1.049, Level}, {0.951, Level}, {1.05, Above}, {0.95, Below},
		{3172, Above}, {0.001, Below},
	} {
		if got := SideOf(c.r); got != c.want {
			t.Errorf("SideOf(%v) = %v, want %v", c.r, got, c.want)
		}
	}
}

// TestJudgements: each rule on synthetic numbers, the seeds' own among
// them.
func TestJudgements(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name string
		j    Judgement
		want Verdict
		why  string // a substring of Why
	}{
		{"batching pays both", SameSide(1.506, 1.55), Holds, "both above 1"},
		{"reversal here too", SameSide(0.8668, 0.9), Holds, "both below 1"},
		{"reversal not here", SameSide(0.8668, 10.5), DoesNotHold, "the seed's 0.867 is below 1"},
		{"level in both", SameSide(1.028, 0.97), Holds, "both level"},
		{"level in the seed, a difference here", SameSide(1.028, 1.18), DoesNotHold, "level (within 5% of 1), here 1.18 is above 1"},
		{"nothing here", SameSide(1.5, 0), NotComparable, "no figure measured here"},
		{"NaN here", SameSide(1.5, nan), NotComparable, "no figure measured here"},
		{"infinite here", SameSide(1.5, math.Inf(1)), NotComparable, "no figure measured here"},
		{"no seed figure", SameSide(0, 2), NotComparable, "no seed figure"},
		{"stated, holds", Expect(Above, 5.2), Holds, "as claimed (the seed gives no figure)"},
		{"stated, level", Expect(Above, 1.01), DoesNotHold, "here 1.01 is level"},
		{"stated, reversed", Expect(Above, 0.5), DoesNotHold, "is below 1"},
		{"stated, nothing", Expect(Above, nan), NotComparable, "no figure"},
		{"at least", AtLeast(5, 16.2, "half of 1/N"), Holds, "16.2 is at least 5"},
		{"under", AtLeast(5, 4.99, "half of 1/N"), DoesNotHold, "4.99 is under 5"},
		{"at most", AtMost(1.25, 1.02, "flat"), Holds, "1.02 is at most 1.25"},
		{"over", AtMost(1.25, 1.4, "flat"), DoesNotHold, "1.4 is over 1.25"},
		{"incomparable", Incomparable("no min-wait here"), NotComparable, "no min-wait here"},
	} {
		if c.j.Verdict != c.want || !strings.Contains(c.j.Why, c.why) {
			t.Errorf("%s: %q (%s), want %q with %q", c.name, c.j.Verdict, c.j.Why, c.want, c.why)
		}
	}
}

// TestNewRowRatio: a row's ratio is here ÷ the seed's, set only when both
// figures are and the verdict compares them.
func TestNewRowRatio(t *testing.T) {
	r := newRow("001", "c", "u", 2, "from", 3, "here", SameSide(2, 3), "cmd")
	if r.Ratio == nil || *r.Ratio != 1.5 || *r.Theirs != 2 || *r.Here != 3 {
		t.Errorf("row %+v: want theirs 2, here 3, ratio 1.5", r)
	}
	r = newRow("002", "c", "u", 1.07, "from", 0.08, "here", Incomparable("other comparison"), "cmd")
	if r.Ratio != nil || r.Here == nil || r.Theirs == nil {
		t.Errorf("a not comparable row with both figures: ratio %v, want none", r.Ratio)
	}
	r = newRow("000", "c", "u", 0, "no figure", 130, "here", Expect(Above, 130), "cmd")
	if r.Theirs != nil || r.Ratio != nil || r.Here == nil {
		t.Errorf("a row without a seed figure: theirs %v, ratio %v", r.Theirs, r.Ratio)
	}
	r = newRow("001", "c", "u", 3.6, "from", math.NaN(), "", SameSide(3.6, math.NaN()), "cmd")
	if r.Here != nil || r.Ratio != nil || r.Verdict != NotComparable {
		t.Errorf("a row measured nothing: here %v, ratio %v, verdict %v", r.Here, r.Ratio, r.Verdict)
	}
}

// TestLatencyClaims: seed 003's 37 against 36 µs at 10~20 descriptors is
// level, so that row claims no difference; at 80~90 and ~200 ppoll's is
// larger, and those rows claim it.
func TestLatencyClaims(t *testing.T) {
	for i, want := range []string{"about what it costs epoll", "more than epoll", "more than epoll"} {
		n := qemuFDs[i]
		r := qemuPpoll[n].Value / qemuEpoll[n].Value
		if got := latencyClaim(r, n); !strings.Contains(got, want) {
			t.Errorf("%d descriptors (%g ÷ %g): claim %q, want it to say %q", n, qemuPpoll[n].Value, qemuEpoll[n].Value, got, want)
		}
	}
}
