package stats

import "fmt"

// Warnings returns what a reader of s should be told before trusting it, as
// short lower-case clauses, most fundamental first; nil when there is nothing
// to say. unit names what the values are of, singular: "interval", "run".
// The command decides how to show them.
func (s Sample) Warnings(unit string) []string {
	var w []string
	switch {
	case s.N == 0:
		w = append(w, fmt.Sprintf("no %ss: nothing was measured", unit))
	case s.N == 1:
		w = append(w, fmt.Sprintf("one %s: no spread and no confidence interval", unit))
	case s.N < 3:
		w = append(w, fmt.Sprintf("few %ss: n=%d, the confidence interval is wide", unit, s.N))
	}
	if s.Skipped > 0 {
		noun := "values"
		if s.Skipped == 1 {
			noun = "value"
		}
		w = append(w, fmt.Sprintf("skipped %d non-finite %s", s.Skipped, noun))
	}
	if s.Noisy {
		w = append(w, fmt.Sprintf("noisy: coefficient of variation %.1f%% exceeds %.3g%%",
			s.CV*100, s.CVThreshold*100))
	}
	return w
}
