package seeds

import (
	"fmt"
	"math"
	"strings"

	"github.com/pipebench/pipebench/stats"
)

// mergeRounds makes one row per claim of the rows each round judged (a
// slice per round, every round the same claims): the figure here is the
// median of the rounds' figures, judged as each round's was (by the judge
// of the round whose figure lies nearest the median, which also gives the
// row's source line). A claim no round measured keeps the first round's
// row, and why. One round's rows come back as they are, Runs set.
func mergeRounds(rounds [][]Row) []Row {
	if len(rounds) == 0 {
		return nil
	}
	if len(rounds) == 1 {
		rows := rounds[0]
		for i := range rows {
			if rows[i].Here != nil {
				rows[i].Runs = 1
			}
		}
		return rows
	}
	type key struct{ seed, claim string }
	byClaim := map[key][]Row{}
	for _, rows := range rounds {
		for _, r := range rows {
			k := key{r.Seed, r.Claim}
			byClaim[k] = append(byClaim[k], r)
		}
	}
	var out []Row
	for i, first := range rounds[0] {
		reps := byClaim[key{first.Seed, first.Claim}]
		var runs []RowRun
		var figs []float64
		for r, rep := range reps {
			runs = append(runs, RowRun{Round: r + 1, Here: rep.Here, HereFrom: rep.HereFrom, Verdict: rep.Verdict})
			if rep.Here != nil {
				figs = append(figs, *rep.Here)
			}
		}
		row := rounds[0][i]
		if len(figs) > 0 {
			row = medianRow(reps, figs)
		}
		row.Runs, row.Repetitions = len(figs), runs
		out = append(out, row)
	}
	return out
}

// medianRow is the row of the median of figs, the figures here of those of
// reps that have one.
func medianRow(reps []Row, figs []float64) Row {
	m := stats.Median(figs)
	var near Row
	best := math.Inf(1)
	for _, rep := range reps {
		if rep.Here != nil && math.Abs(*rep.Here-m) < best {
			near, best = rep, math.Abs(*rep.Here-m)
		}
	}
	list := make([]string, len(figs))
	for i, f := range figs {
		list[i] = fmt.Sprintf("%.4g", f)
	}
	from := fmt.Sprintf("the median of %d runs (%s); the run nearest it: %s", len(figs), strings.Join(list, ", "), near.HereFrom)
	if len(figs) == 1 {
		from = "1 run (the other rounds measured none): " + near.HereFrom
	}
	j := near.Judgement
	if near.judge != nil {
		j = near.judge(m)
	}
	r := newRow(near.Seed, near.Claim, near.Unit, 0, near.TheirsFrom, m, from, j, near.Command)
	r.Theirs, r.judge = near.Theirs, near.judge
	if r.Theirs != nil && r.Here != nil && j.Verdict != NotComparable {
		r.Ratio = num(*r.Here / *r.Theirs)
	}
	return r
}
