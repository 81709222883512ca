package stats

import "fmt"

// Warnings returns what a reader of s should be told before trusting it, as
// short lower-case clauses, most fundamental first; nil when there is nothing
// to say. The command decides how to show them.
func (s Summary) Warnings() []string {
	var w []string
	switch {
	case s.N == 0:
		w = append(w, "no intervals: nothing was measured")
	case s.N == 1:
		w = append(w, "one interval: no spread and no confidence interval")
	case s.N < 3:
		w = append(w, fmt.Sprintf("few intervals: n=%d, the confidence interval is wide", s.N))
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
