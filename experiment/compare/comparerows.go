package compare

import (
	"math"
	"slices"

	"github.com/pipebench/pipebench/experiment/text"
	cmpstat "github.com/pipebench/pipebench/stats/compare"
)

// rows fills the configurations, the geomeans and the partial list.
func (c *Comparison) rows(cols []column) {
	seen := map[string]bool{}
	var keys []string
	for _, col := range cols {
		for _, s := range col.order {
			if !seen[s.Key] {
				seen[s.Key] = true
				keys = append(keys, s.Key)
			}
		}
	}
	for _, k := range keys {
		var in []string
		var have [][]*Sampled
		for _, col := range cols {
			if ss, ok := col.configs[k]; ok {
				in = append(in, col.label)
				have = append(have, ss)
			}
		}
		if len(have) < len(cols) {
			c.Partial = append(c.Partial, Partial{Label: have[0][0].Label, In: in})
			if len(cols) > 1 {
				continue
			}
		}
		c.Configs = append(c.Configs, c.configRows(have))
	}
	if len(cols) > 1 {
		c.geomeans()
	}
}

// configRows compares one configuration's sides, each its sittings: a row
// per figure every sitting has, the primary figure's change judged alone,
// the others' after the Benjamini-Hochberg adjustment over them.
func (c *Comparison) configRows(have [][]*Sampled) ConfigRows {
	cr := ConfigRows{Label: have[0][0].Label}
	over := true // every side has sittings to compare
	for _, ss := range have {
		n := 0
		for _, s := range ss {
			n += s.LeftOut
		}
		cr.LeftOut = append(cr.LeftOut, n)
		over = over && len(ss) > 1
	}
	if !slices.ContainsFunc(cr.LeftOut, func(n int) bool { return n > 0 }) {
		cr.LeftOut = nil
	}
	ms := metricsOf(have)
	cr.Primary = c.primaryOf(ms, have[0][0].Open)
	for _, m := range ms {
		row := Row{Metric: m.Name, Direction: m.Dir.String(), Primary: m.Name == cr.Primary, dir: m.Dir}
		vals := make([][][]float64, len(have))
		for i, ss := range have {
			for _, s := range ss {
				vals[i] = append(vals[i], s.Values[m.Name])
			}
			if over {
				row.Summaries = append(row.Summaries, cmpstat.SummarizeSittings(vals[i]))
			} else {
				row.Summaries = append(row.Summaries, cmpstat.Summarize(slices.Concat(vals[i]...)))
			}
			switch {
			case i == 0:
			case over:
				row.Changes = append(row.Changes, cmpstat.CompareSittings(vals[0], vals[i], m.Dir, c.Floor))
			default:
				row.Changes = append(row.Changes, cmpstat.Compare(slices.Concat(vals[0]...), slices.Concat(vals[i]...), m.Dir, c.Floor))
			}
		}
		cr.Rows = append(cr.Rows, row)
	}
	adjust(cr.Rows)
	cr.Advice = c.advice(have, &cr)
	return cr
}

// adjust judges each column's changes of the figures besides the primary
// one after the Benjamini-Hochberg adjustment of their p-values: in an
// A/A comparison the chance that any of them is called stays about Alpha.
func adjust(rows []Row) {
	if len(rows) == 0 {
		return
	}
	for j := range rows[0].Changes {
		var ps []float64
		var at []int
		for i, r := range rows {
			if !r.Primary {
				ps, at = append(ps, r.Changes[j].P), append(at, i)
			}
		}
		for k, p := range cmpstat.Adjust(ps) {
			r := &rows[at[k]]
			r.Changes[j].Rejudge(p, r.dir)
		}
	}
}

// primaryOf is the figure a configuration's comparison asks about: -metric,
// or evts/sec, or (a timeout's overshoots) the first figure. At a fixed
// offered load (open, -rate) the events per second are the load itself,
// so the question is the cost: CPU per token.
func (c *Comparison) primaryOf(ms []Metric, open bool) string {
	switch {
	case c.Metric != "":
		return c.Metric
	case open && slices.ContainsFunc(ms, func(m Metric) bool { return m.Name == mCPU.Name }):
		return mCPU.Name
	case slices.ContainsFunc(ms, func(m Metric) bool { return m.Name == mEvents.Name }):
		return mEvents.Name
	case len(ms) > 0:
		return ms[0].Name
	}
	return ""
}

// metricsOf are the metrics every sample has, in the first's order.
func metricsOf(have [][]*Sampled) []Metric {
	var ms []Metric
	for _, m := range have[0][0].Order {
		all := true
		for _, ss := range have {
			for _, s := range ss {
				_, ok := s.Values[m.Name]
				all = all && ok
			}
		}
		if all {
			ms = append(ms, m)
		}
	}
	return ms
}

// geomeans are each figure's geometric mean over the configurations, per
// column, and each later column's ratio to the first.
func (c *Comparison) geomeans() {
	if len(c.Configs) < 2 {
		return // one configuration: its own rows say it
	}
	var order []string
	values := map[string][][]float64{}
	for _, cr := range c.Configs {
		for _, r := range cr.Rows {
			if values[r.Metric] == nil {
				order = append(order, r.Metric)
				values[r.Metric] = make([][]float64, len(r.Summaries))
			}
			for i, s := range r.Summaries {
				values[r.Metric][i] = append(values[r.Metric][i], s.Median)
			}
		}
	}
	for _, name := range order {
		vs := values[name]
		if len(vs[0]) != len(c.Configs) {
			continue // a figure some configurations lack
		}
		g := Geomean{Metric: name, Configs: len(vs[0])}
		ok := true
		for i, xs := range vs {
			v := cmpstat.Geomean(xs)
			ok = ok && text.Finite(v)
			g.Values = append(g.Values, v)
			if i > 0 {
				g.Changes = append(g.Changes, v/g.Values[0]-1)
			}
		}
		if ok { // a figure that is 0 somewhere (no context switch) has none
			c.Geomeans = append(c.Geomeans, g)
		}
	}
}

// Advice is what a configuration's primary figure asks of a comparison:
// how far its runs spread inside a sitting (Within) and its sittings
// between them (Between, nil when every side has one sitting: unknown),
// as relative standard deviations, and the sittings and runs a side that
// find a change of each size in Needs 80% of the time (0 sittings: more
// than cmpstat.MaxSittings, or with one sitting, more than ResolveMax
// runs).
type Advice struct {
	Metric  string         `json:"metric"`
	Between *float64       `json:"between_sittings,omitempty"`
	Within  float64        `json:"within_sitting"`
	Needs   []cmpstat.Need `json:"needs"`
}

// ResolveMax is the most runs a side the advice of one sitting looks at.
const ResolveMax = 60

// advice is cr's Advice: over sittings, from the variance components of
// the primary figure's log values and cmpstat.Plan; of one sitting, from
// the runs' robust spread about each sitting's median and cmpstat.Resolve.
func (c *Comparison) advice(have [][]*Sampled, cr *ConfigRows) *Advice {
	i := slices.IndexFunc(cr.Rows, func(r Row) bool { return r.Primary })
	if i < 0 {
		return nil
	}
	floor := c.Floor
	if len(cr.Rows[i].Changes) > 0 && text.Finite(cr.Rows[i].Changes[0].Floor) {
		floor = cr.Rows[i].Changes[0].Floor
	}
	a := &Advice{Metric: cr.Primary}
	var sides [][][]float64
	var pooled []float64
	over := true
	for _, ss := range have {
		var side [][]float64
		for _, s := range ss {
			xs := s.Values[cr.Primary]
			if len(xs) < 3 {
				return nil
			}
			side = append(side, xs)
			med := cmpstat.Summarize(xs).Median
			for _, x := range xs {
				pooled = append(pooled, x/med)
			}
		}
		sides = append(sides, side)
		over = over && len(ss) > 1
	}
	if over {
		b, w, ok := cmpstat.Components(sides)
		if !ok {
			return nil
		}
		sb := math.Expm1(math.Sqrt(b))
		a.Between, a.Within = &sb, math.Expm1(math.Sqrt(w))
		for _, d := range targets(floor) {
			a.Needs = append(a.Needs, cmpstat.Plan(b, w, d, c.Floor, 1))
		}
		return a
	}
	if a.Within = cmpstat.RelativeSpread(pooled); !text.Finite(a.Within) {
		return nil
	}
	for _, d := range targets(floor) {
		a.Needs = append(a.Needs, cmpstat.Need{Change: d, Sittings: 1, Runs: cmpstat.Resolve(a.Within, d, floor, ResolveMax, 1)})
	}
	return a
}

// targets are the changes the advice sizes a comparison for: 5%, and
// twice the floor (at the floor itself a change is called half the time at
// best), the smaller first; 5% alone when they are close, twice the floor
// alone when 5% is under the floor.
func targets(floor float64) []float64 {
	f2 := math.Round(2000*floor) / 1000
	switch {
	case floor >= 0.05:
		return []float64{f2}
	case math.Abs(f2-0.05) < 0.005:
		return []float64{0.05}
	case f2 < 0.05:
		return []float64{f2, 0.05}
	}
	return []float64{0.05, f2}
}
