package report

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/pipebench/pipebench/internal/envinfo"
	"github.com/pipebench/pipebench/stats/compare"
)

// Comparison is what pipebench compare reports: the records (or, with
// -by, the values of one flag inside one record) side by side, the first
// the base, configuration by configuration and figure by figure.
type Comparison struct {
	Record
	// Inputs are the compared columns: records, or a flag's values.
	Inputs []Input `json:"inputs"`
	// By is the flag whose values are the columns, "" when they are
	// records.
	By string `json:"by,omitempty"`
	// Differences are what differs between the records' machines,
	// builds and settings; Warnings what a reader must not miss.
	Differences []Difference `json:"differences,omitempty"`
	Warnings    []string     `json:"warnings,omitempty"`
	Configs     []ConfigRows `json:"configurations"`
	Geomeans    []Geomean    `json:"geomeans,omitempty"`
	// Partial lists the configurations that some columns lack.
	Partial []Partial `json:"partial,omitempty"`
}

// Input is one column.
type Input struct {
	Label string `json:"label"`
	// Value is the -by flag's value a column lettered A, B, ... stands
	// for (the values were too long to head a column).
	Value   string `json:"value,omitempty"`
	Path    string `json:"path"`
	Command string `json:"command"`
	Started string `json:"started"`
	Machine string `json:"machine"`
	Build   string `json:"pipebench"`
}

// Difference is one setting or fact of the machine that differs.
type Difference struct {
	What   string   `json:"what"`
	Values []string `json:"values"`
}

// ConfigRows is one configuration: a row per metric.
type ConfigRows struct {
	Label   string `json:"configuration"`
	LeftOut []int  `json:"runs_left_out,omitempty"`
	Rows    []Row  `json:"rows"`
	// Resolve says how many runs this configuration needs, at the spread
	// its runs of evts/sec show; nil with fewer than three runs a column.
	Resolve *Resolution `json:"resolve,omitempty"`
}

// Resolution is what a configuration's spread asks of a comparison: its
// runs' robust spread of evts/sec (each column's runs against their own
// median, pooled), and the runs a side with which the U test finds a 2%
// and a 5% change 80% of the time (0: more than ResolveMax).
type Resolution struct {
	Spread float64 `json:"spread"`
	Runs2  int     `json:"runs_for_2pct"`
	Runs5  int     `json:"runs_for_5pct"`
}

// ResolveMax is the most runs a side Resolution looks at.
const ResolveMax = 60

// resolution is the Resolution of the columns' evts/sec runs.
func resolution(have []*Sampled) *Resolution {
	var pooled []float64
	for _, s := range have {
		xs := s.Values[mEvents.Name]
		if len(xs) < 3 {
			return nil
		}
		med := compare.Summarize(xs).Median
		for _, x := range xs {
			pooled = append(pooled, x/med)
		}
	}
	sp := compare.RelativeSpread(pooled)
	if !finite(sp) {
		return nil
	}
	return &Resolution{Spread: sp, Runs2: compare.Resolve(sp, 0.02, ResolveMax, 1), Runs5: compare.Resolve(sp, 0.05, ResolveMax, 1)}
}

// Row is one metric of one configuration: each column's summary, and the
// change of each column after the first against the first.
type Row struct {
	Metric    string            `json:"metric"`
	Direction string            `json:"direction"`
	Summaries []compare.Summary `json:"summaries"`
	Changes   []compare.Change  `json:"changes,omitempty"`
	dir       compare.Direction
}

// Geomean is a metric's geometric mean over the configurations every
// column has, and each later column's ratio to the first, less 1.
type Geomean struct {
	Metric  string    `json:"metric"`
	Values  []float64 `json:"values"`
	Changes []float64 `json:"changes"`
	Configs int       `json:"configurations"`
}

// Partial is a configuration that only some columns have.
type Partial struct {
	Label string   `json:"configuration"`
	In    []string `json:"in"`
}

// columns is one column's configurations by key.
type column struct {
	label   string
	configs map[string]*Sampled
	order   []*Sampled
}

// ByLabelWidth is the longest value of a -by flag that names its column;
// longer values are columns A, B, ..., each named above the tables.
const ByLabelWidth = 12

// NewComparison compares the loaded records, the first the base. Every
// record must be of the same command. With by set there must be one
// record, and the columns are the values of that flag in it, base's first
// (the first in the record's order when base is "").
func NewComparison(rec Record, records []*Loaded, by, base string) (*Comparison, error) {
	c := &Comparison{Record: rec, By: by}
	for _, l := range records[1:] {
		if l.Command != records[0].Command {
			return nil, &RecordError{l.Path, fmt.Sprintf("a record of pipebench %s, where %s is of pipebench %s: compare records of one command",
				l.Command, records[0].Path, records[0].Command)}
		}
	}
	var cols []column
	if by != "" {
		if len(records) != 1 {
			return nil, fmt.Errorf("-by %s compares the values of a flag inside one record: give one file, not %d", by, len(records))
		}
		var err error
		if cols, err = byColumns(records[0], by); err != nil {
			return nil, err
		}
		if base != "" {
			i := slices.IndexFunc(cols, func(col column) bool { return col.label == base })
			if i < 0 {
				var vs []string
				for _, col := range cols {
					vs = append(vs, col.label)
				}
				return nil, fmt.Errorf("-base %s: not a value of -%s in %s (%s)", base, by, records[0].Path, strings.Join(vs, ", "))
			}
			cols = append(append([]column{cols[i]}, cols[:i]...), cols[i+1:]...)
		}
		long := slices.ContainsFunc(cols, func(col column) bool { return len(col.label) > ByLabelWidth })
		l := records[0]
		for i := range cols {
			in := Input{Label: cols[i].label, Path: l.Path, Command: l.CommandLine(),
				Started: l.Started.Format("2006-01-02 15:04 MST"), Machine: shortMachine(&l.Environment), Build: l.Pipebench.String()}
			if long {
				in.Value = cols[i].label
				in.Label = string(rune('A' + i%26))
				cols[i].label = in.Label
			}
			c.Inputs = append(c.Inputs, in)
		}
	} else {
		for i, l := range records {
			col := column{label: string(rune('A' + i%26)), configs: map[string]*Sampled{}}
			if len(records) > 26 {
				col.label = fmt.Sprint(i + 1)
			}
			for _, s := range l.Configs {
				col.configs[s.Key] = s
				col.order = append(col.order, s)
			}
			cols = append(cols, col)
			c.Inputs = append(c.Inputs, Input{Label: col.label, Path: l.Path, Command: l.CommandLine(),
				Started: l.Started.Format("2006-01-02 15:04 MST"), Machine: shortMachine(&l.Environment), Build: l.Pipebench.String()})
		}
		c.differences(records)
	}
	c.rows(cols)
	return c, nil
}

// byColumns splits one record's configurations by the value of flag.
func byColumns(l *Loaded, flag string) ([]column, error) {
	var cols []column
	index := map[string]int{}
	var names []string
	for _, s := range l.Configs {
		v, ok := s.Vars[flag]
		if !ok {
			continue
		}
		if _, seen := index[v]; !seen {
			index[v] = len(cols)
			cols = append(cols, column{label: v, configs: map[string]*Sampled{}})
		}
		rest := *s
		rest.Key, rest.Label = withoutFlag(s.Key, flag, v), withoutFlag(s.Label, flag, v)
		col := &cols[index[v]]
		col.configs[rest.Key] = &rest
		col.order = append(col.order, &rest)
	}
	for k := range l.Configs[0].Vars {
		names = append(names, "-"+k)
	}
	sort.Strings(names)
	switch {
	case len(cols) == 0:
		return nil, fmt.Errorf("-by %s: %s's configurations have no -%s (they vary by %s)", flag, l.Path, flag, strings.Join(names, ", "))
	case len(cols) == 1:
		return nil, fmt.Errorf("-by %s: -%s does not vary in %s (every configuration has -%s %s): want a flag the record varies (%s)",
			flag, flag, l.Path, flag, cols[0].label, strings.Join(names, ", "))
	}
	return cols, nil
}

// withoutFlag is a configuration's key without "-flag value".
func withoutFlag(key, flag, value string) string {
	s := strings.Replace(" "+key+" ", " -"+flag+" "+value+" ", " ", 1)
	return strings.TrimSpace(s)
}

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
	type acc struct {
		dir    compare.Direction
		values [][]float64
	}
	geo := map[string]*acc{}
	var geoOrder []string
	for _, k := range keys {
		var in []string
		var have []*Sampled
		for _, col := range cols {
			if s, ok := col.configs[k]; ok {
				in = append(in, col.label)
				have = append(have, s)
			}
		}
		if len(have) < len(cols) {
			c.Partial = append(c.Partial, Partial{Label: have[0].Label, In: in})
			if len(cols) > 1 {
				continue
			}
		}
		cr := ConfigRows{Label: have[0].Label, Resolve: resolution(have)}
		for _, s := range have {
			cr.LeftOut = append(cr.LeftOut, s.LeftOut)
		}
		if !slices.ContainsFunc(cr.LeftOut, func(n int) bool { return n > 0 }) {
			cr.LeftOut = nil
		}
		for _, m := range metricsOf(have) {
			row := Row{Metric: m.Name, Direction: m.Dir.String(), dir: m.Dir}
			for i, s := range have {
				row.Summaries = append(row.Summaries, compare.Summarize(s.Values[m.Name]))
				if i > 0 {
					row.Changes = append(row.Changes, compare.Compare(have[0].Values[m.Name], s.Values[m.Name], m.Dir))
				}
			}
			cr.Rows = append(cr.Rows, row)
			if len(cols) > 1 {
				g := geo[m.Name]
				if g == nil {
					g = &acc{dir: m.Dir, values: make([][]float64, len(cols))}
					geo[m.Name] = g
					geoOrder = append(geoOrder, m.Name)
				}
				for i := range have {
					g.values[i] = append(g.values[i], row.Summaries[i].Median)
				}
			}
		}
		c.Configs = append(c.Configs, cr)
	}
	for _, name := range geoOrder {
		g := geo[name]
		if len(g.values[0]) < 2 {
			continue // one configuration: its own row says it
		}
		gm := Geomean{Metric: name, Configs: len(g.values[0])}
		ok := true
		for i, vs := range g.values {
			v := compare.Geomean(vs)
			ok = ok && finite(v)
			gm.Values = append(gm.Values, v)
			if i > 0 {
				gm.Changes = append(gm.Changes, v/gm.Values[0]-1)
			}
		}
		if ok { // a figure that is 0 somewhere (no context switch) has none
			c.Geomeans = append(c.Geomeans, gm)
		}
	}
}

// metricsOf are the metrics every sample has, in the first's order.
func metricsOf(have []*Sampled) []Metric {
	var ms []Metric
	for _, m := range have[0].Order {
		all := true
		for _, s := range have[1:] {
			_, ok := s.Values[m.Name]
			all = all && ok
		}
		if all {
			ms = append(ms, m)
		}
	}
	return ms
}

// differences lists what differs between the records' machines, builds
// and settings, and warns when anything besides the kernel does.
func (c *Comparison) differences(records []*Loaded) {
	type fact struct {
		what   string
		of     func(*Loaded) string
		kernel bool // a difference a kernel comparison is made of
	}
	env := func(f func(e *envinfo.Environment) string) func(*Loaded) string {
		return func(l *Loaded) string { return f(&l.Environment) }
	}
	facts := []fact{
		{"kernel", env(func(e *envinfo.Environment) string { return e.Kernel }), true},
		{"kernel build", env(func(e *envinfo.Environment) string { return e.KernelBuild }), true},
		{"kernel command line", env(func(e *envinfo.Environment) string { return e.KernelCmdline }), false},
		{"cpu", env(func(e *envinfo.Environment) string { return e.CPU() }), false},
		{"cores", env(func(e *envinfo.Environment) string { return fmt.Sprint(e.Cores) }), false},
		{"smt", env(func(e *envinfo.Environment) string { return e.SMT }), false},
		{"numa nodes", env(func(e *envinfo.Environment) string { return fmt.Sprint(e.NUMANodes) }), false},
		{"hypervisor", env(func(e *envinfo.Environment) string { return e.Hypervisor }), false},
		{"cpufreq", env(func(e *envinfo.Environment) string {
			return strings.TrimSpace(e.CPUFreqDriver + " " + e.CPUFreqGovernor)
		}), false},
		{"clock source", env(func(e *envinfo.Environment) string { return e.ClockSource }), false},
		{"mitigations", env(func(e *envinfo.Environment) string { return e.MitigationSummary() }), false},
		{"go", env(func(e *envinfo.Environment) string { return e.GoVersion }), false},
		{"gomaxprocs", env(func(e *envinfo.Environment) string { return fmt.Sprint(e.GOMAXPROCS) }), false},
		{"fd limit", env(func(e *envinfo.Environment) string { return fmt.Sprintf("%d/%d", e.FDSoft, e.FDHard) }), false},
		{"pipebench", func(l *Loaded) string { return l.Pipebench.String() }, false},
	}
	// Every flag, but those that only say where the output went.
	ignore := map[string]bool{"o": true, "format": true, "cpuprofile": true, "kprofile": true, "plot": true, "ref": true}
	flagNames := map[string]bool{}
	for _, l := range records {
		for k := range l.Flags {
			if !ignore[k] {
				flagNames[k] = true
			}
		}
	}
	var flags []string
	for k := range flagNames {
		flags = append(flags, k)
	}
	sort.Strings(flags)
	for _, k := range flags {
		facts = append(facts, fact{"-" + k, func(l *Loaded) string {
			v, ok := l.Flags[k]
			if !ok {
				return "(no such flag)"
			}
			return v
		}, false})
	}
	var others []string
	for _, f := range facts {
		var vs []string
		differ := false
		for _, l := range records {
			v := f.of(l)
			differ = differ || (len(vs) > 0 && v != vs[0])
			vs = append(vs, v)
		}
		if differ {
			c.Differences = append(c.Differences, Difference{What: f.what, Values: vs})
			if !f.kernel {
				others = append(others, f.what)
			}
		}
	}
	if len(others) > 0 {
		c.Warnings = append(c.Warnings, "the records differ in more than the kernel ("+strings.Join(others, ", ")+"): a change may be theirs")
	}
	for _, l := range records {
		if la := l.Environment.LoadAverage[0]; la > 0.5 {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s began with a load average of %.2f: another program was running", l.Path, la))
		}
	}
}

// finite says whether x can be printed as a number.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// shortMachine is what a comparison's head says of a record's machine;
// the rest of it is compared fact by fact (Differences).
func shortMachine(e *envinfo.Environment) string {
	return fmt.Sprintf("Linux %s, %s, %d cores, clock %s, %s", e.Kernel, e.CPU(), e.Cores, e.ClockSource, e.GoVersion)
}
