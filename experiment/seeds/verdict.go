package seeds

import (
	"fmt"
	"math"
)

// Verdict says whether a seed's claim holds on this machine.
type Verdict string

const (
	// Holds: the figure here says what the seed's says.
	Holds Verdict = "holds"
	// DoesNotHold: it says otherwise, or shows no difference where the
	// seed claims one.
	DoesNotHold Verdict = "does not hold"
	// NotComparable: the two figures do not measure the same thing, or
	// nothing could be measured here; the row says why.
	NotComparable Verdict = "not comparable"
)

// Margin is how far from 1 a ratio must be to count as a difference: 5%,
// the run-to-run variation above which pipebench's summary warns that a
// run is noisy. Within it a ratio is level. It is pipebench's rule: the
// seeds state no tolerance.
const Margin = 0.05

// Side is where a ratio of two figures lies against 1.
type Side int

const (
	Below Side = -1 // at most 1-Margin: the second figure is larger
	Level Side = 0  // within Margin of 1
	Above Side = 1  // at least 1+Margin: the first figure is larger
)

func (s Side) String() string {
	switch s {
	case Below:
		return fmt.Sprintf("below 1 (by more than %.0f%%)", 100*Margin)
	case Above:
		return fmt.Sprintf("above 1 (by more than %.0f%%)", 100*Margin)
	}
	return fmt.Sprintf("level (within %.0f%% of 1)", 100*Margin)
}

// SideOf places ratio r against 1.
func SideOf(r float64) Side {
	switch {
	case r >= 1+Margin:
		return Above
	case r <= 1-Margin:
		return Below
	}
	return Level
}

// Judgement is a verdict and why.
type Judgement struct {
	Verdict Verdict `json:"verdict"`
	Why     string  `json:"why"`
}

// usable says whether x is a figure at all: finite and above 0.
func usable(x float64) bool { return x > 0 && !math.IsInf(x, 0) && !math.IsNaN(x) }

// noFigure is the judgement of a ratio that could not be measured.
func noFigure(here float64) (Judgement, bool) {
	if usable(here) {
		return Judgement{}, false
	}
	return Judgement{NotComparable, fmt.Sprintf("no figure measured here (%v)", here)}, true
}

// SameSide judges a claim that the seed shows as a ratio of two figures
// (seed) against the same ratio measured here: it holds when both lie on
// the same side of 1 (SideOf); it does not hold otherwise.
func SameSide(seed, here float64) Judgement {
	if j, bad := noFigure(here); bad {
		return j
	}
	if !usable(seed) {
		return Judgement{NotComparable, fmt.Sprintf("no seed figure (%v)", seed)}
	}
	s, h := SideOf(seed), SideOf(here)
	if s == h {
		return Judgement{Holds, fmt.Sprintf("both %s", s)}
	}
	return Judgement{DoesNotHold, fmt.Sprintf("the seed's %.3g is %s, here %.3g is %s", seed, s, here, h)}
}

// Expect judges a claim the seed states without a figure, as a direction:
// the ratio here must lie on side want.
func Expect(want Side, here float64) Judgement {
	if j, bad := noFigure(here); bad {
		return j
	}
	if h := SideOf(here); h != want {
		return Judgement{DoesNotHold, fmt.Sprintf("the claim wants %s, here %.3g is %s", want, here, h)}
	}
	return Judgement{Holds, fmt.Sprintf("%.3g is %s, as claimed (the seed gives no figure)", here, want)}
}

// AtLeast judges a claim of size: the figure here must be at least min
// (what says what min stands for).
func AtLeast(min, here float64, what string) Judgement {
	if j, bad := noFigure(here); bad {
		return j
	}
	if here >= min {
		return Judgement{Holds, fmt.Sprintf("%.3g is at least %.3g (%s)", here, min, what)}
	}
	return Judgement{DoesNotHold, fmt.Sprintf("%.3g is under %.3g (%s)", here, min, what)}
}

// AtMost judges a claim of size: the figure here must be at most max.
func AtMost(max, here float64, what string) Judgement {
	if j, bad := noFigure(here); bad {
		return j
	}
	if here <= max {
		return Judgement{Holds, fmt.Sprintf("%.3g is at most %.3g (%s)", here, max, what)}
	}
	return Judgement{DoesNotHold, fmt.Sprintf("%.3g is over %.3g (%s)", here, max, what)}
}

// Incomparable is the judgement of a row whose figures do not measure the
// same thing.
func Incomparable(why string) Judgement { return Judgement{NotComparable, why} }
