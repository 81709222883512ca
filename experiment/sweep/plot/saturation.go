package plot

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// saturation is where a curve saturates: its measured saturation, or else
// (measured false) the first rate past it.
type saturation struct {
	name     string
	x        float64
	measured bool
}

// nearShare is how near two saturation marks stand, as a share of the
// largest offered load or mark, when their labels are drawn as one. The x
// axis runs from 0 to a little past that load over some 520 points of the
// panel's width, so 3% of it is some 15 points; a label (9 points) stands
// 1 to 10 points right of its line, so the labels of marks further apart
// do not overlap.
const nearShare = 0.03

// saturationMarks are the marks of ss, a line each, in their order. Marks
// within nearShare of xmax of their neighbours share one label naming
// each curve, drawn by the rightmost line of them (a label stands to the
// right of its line); the others' labels are empty.
func saturationMarks(ss []saturation, xmax float64) []Mark {
	ms := make([]Mark, len(ss))
	order := make([]int, len(ss))
	for i, s := range ss {
		ms[i] = Mark{X: s.x, Resolved: s.measured}
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ss[a].x, ss[b].x) })
	for lo := 0; lo < len(order); {
		hi := lo + 1
		for hi < len(order) && ss[order[hi]].x-ss[order[hi-1]].x <= nearShare*xmax {
			hi++
		}
		var near []saturation
		for _, i := range order[lo:hi] {
			near = append(near, ss[i])
		}
		ms[order[hi-1]].Label = saturationLabel(near)
		lo = hi
	}
	return ms
}

// saturationLabel is the label of marks ss, left to right: "epoll
// saturates at 300k (unbounded writer)", "uring past saturation at 500k",
// or, for several, "epoll 1.80M, uring 1.81M: saturation (unbounded
// writer)" (and "...: past saturation" for the first rates past it).
func saturationLabel(ss []saturation) string {
	if len(ss) == 1 {
		s := ss[0]
		if s.measured {
			return fmt.Sprintf("%s saturates at %s (unbounded writer)", s.name, short3(s.x))
		}
		return fmt.Sprintf("%s past saturation at %s", s.name, short3(s.x))
	}
	var measured, past []string
	for _, s := range ss {
		if s.measured {
			measured = append(measured, s.name+" "+short3(s.x))
		} else {
			past = append(past, s.name+" "+short3(s.x))
		}
	}
	var parts []string
	if len(measured) > 0 {
		parts = append(parts, strings.Join(measured, ", ")+": saturation (unbounded writer)")
	}
	if len(past) > 0 {
		parts = append(parts, strings.Join(past, ", ")+": past saturation")
	}
	return strings.Join(parts, "; ")
}

// short3 is short with three significant digits, trailing zeros kept:
// 1.80M beside 1.81M.
func short3(v float64) string {
	v, unit := inUnit(v)
	return strings.TrimSuffix(fmt.Sprintf("%#.3g", v), ".") + unit
}
