package compare

import (
	"fmt"

	cmpstat "github.com/pipebench/pipebench/stats/compare"
)

// Check is compare -check's answer, for git bisect run: whether any later
// column's primary figure got significantly worse beyond the floor (for a
// figure with no better way: changed), in any configuration.
type Check struct {
	// Status is CheckOK (no such change), CheckWorse (one), or
	// CheckUnknown (none, but some comparison had too few runs or
	// sittings to tell).
	Status CheckStatus `json:"status"`
	// Why names the comparison that decided it.
	Why string `json:"why"`
}

// CheckStatus is what Check found.
type CheckStatus string

const (
	CheckOK      CheckStatus = "not worse"
	CheckWorse   CheckStatus = "worse"
	CheckUnknown CheckStatus = "cannot tell"
)

// Check judges the comparison for -check: worse wins over cannot tell,
// which wins over not worse.
func (c *Comparison) Check() Check {
	out := Check{Status: CheckOK, Why: "no primary figure got worse beyond its floor"}
	for _, cr := range c.Configs {
		for _, r := range cr.Rows {
			if !r.Primary {
				continue
			}
			for j, ch := range r.Changes {
				what := fmt.Sprintf("%s: %s vs %s, %s %s", cr.Label, c.Sides[j+1].Label, c.Sides[0].Label, r.Metric, changeText(ch))
				switch {
				case ch.Verdict == cmpstat.Worse || ch.Verdict == cmpstat.Changed:
					return Check{Status: CheckWorse, Why: fmt.Sprintf("%s: %s beyond the %.1f%% floor", what, ch.Verdict, 100*ch.Floor)}
				case ch.Verdict == cmpstat.TooFew && out.Status == CheckOK:
					out = Check{Status: CheckUnknown, Why: what + ": too few runs or sittings to tell"}
				}
			}
		}
	}
	return out
}
