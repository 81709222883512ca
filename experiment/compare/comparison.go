package compare

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/pipebench/pipebench/experiment/record"
	"github.com/pipebench/pipebench/internal/envinfo"
	cmpstat "github.com/pipebench/pipebench/stats/compare"
)

// Comparison is what pipebench compare reports: the sides (records, or,
// with -by, the values of one flag inside one record) side by side, the
// first the base, configuration by configuration and figure by figure.
// A side may hold several records, each one sitting (a boot, or one quiet
// window of the machine): the change is then judged over the sittings.
type Comparison struct {
	record.Head
	// Inputs are the records, each with its side (with -by: the columns,
	// each a value of the flag).
	Inputs []Input `json:"inputs"`
	// Sides are the compared columns, each with its records' indices in
	// Inputs.
	Sides []Side `json:"sides"`
	// By is the flag whose values are the columns, "" when they are
	// records.
	By string `json:"by,omitempty"`
	// Metric is the figure each comparison asks about, given by -metric;
	// "" for each configuration's own (ConfigRows.Primary).
	Metric string `json:"metric,omitempty"`
	// Floor is the least change called better or worse when the spread
	// between sittings is unknown or smaller (-floor).
	Floor float64 `json:"floor"`
	// Sittings says whether the changes are judged over sittings (every
	// side holds two records or more); OneSitting that every column ran
	// in one sitting (-by).
	Sittings   bool `json:"over_sittings"`
	OneSitting bool `json:"one_sitting,omitempty"`
	// Differences are what differs between the records' machines,
	// builds and settings; Warnings what a reader must not miss.
	Differences []Difference `json:"differences,omitempty"`
	Warnings    []string     `json:"warnings,omitempty"`
	Configs     []ConfigRows `json:"configurations"`
	Geomeans    []Geomean    `json:"geomeans,omitempty"`
	// Partial lists the configurations that some columns lack.
	Partial []Partial `json:"partial,omitempty"`
	// Crossings are, for sweep records, where each later side's curves
	// cross against where the first's do (crossings.go).
	Crossings []Crossings `json:"crossings,omitempty"`
}

// Options are how New compares: By and Base as -by and -base,
// Metric the figure asked about ("": each configuration's own), Floor the
// least change called (-floor).
type Options struct {
	By, Base, Metric string
	Floor            float64
}

// Input is one record (with -by, one column).
type Input struct {
	// Label names the record: its side's letter, with its place in the
	// side when the side has several (A1, A2).
	Label string `json:"label"`
	Side  string `json:"side"`
	// Value is the -by flag's value a column lettered A, B, ... stands
	// for (the values were too long to head a column).
	Value   string `json:"value,omitempty"`
	Path    string `json:"path"`
	Command string `json:"command"`
	Started string `json:"started"`
	Machine string `json:"machine"`
	Build   string `json:"pipebench"`
}

// Side is one compared column: its label and its records (indices in
// Comparison.Inputs), each a sitting.
type Side struct {
	Label   string `json:"label"`
	Records []int  `json:"records"`
}

// Difference is one setting or fact of the machine that differs.
type Difference struct {
	What   string   `json:"what"`
	Values []string `json:"values"`
}

// ConfigRows is one configuration: a row per metric.
type ConfigRows struct {
	Label string `json:"configuration"`
	// Primary is the figure whose change is the verdict; the other rows
	// are judged after the Benjamini-Hochberg adjustment over them.
	Primary string `json:"primary"`
	// LeftOut counts each side's runs left out (failed, interrupted).
	LeftOut []int `json:"runs_left_out,omitempty"`
	Rows    []Row `json:"rows"`
	// Advice says how many sittings and runs this configuration's primary
	// figure needs, at the spread its runs and sittings show; nil when
	// they are too few to tell.
	Advice *Advice `json:"advice,omitempty"`
}

// Row is one metric of one configuration: each column's summary, and the
// change of each column after the first against the first.
type Row struct {
	Metric    string            `json:"metric"`
	Direction string            `json:"direction"`
	Primary   bool              `json:"primary,omitempty"`
	Summaries []cmpstat.Summary `json:"summaries"`
	Changes   []cmpstat.Change  `json:"changes,omitempty"`
	dir       cmpstat.Direction
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

// column is one column's configurations by key, each with its sittings.
type column struct {
	label   string
	configs map[string][]*Sampled
	order   []*Sampled
}

// add puts a sitting's configuration into the column.
func (col *column) add(s *Sampled) {
	if _, ok := col.configs[s.Key]; !ok {
		col.order = append(col.order, s)
	}
	col.configs[s.Key] = append(col.configs[s.Key], s)
}

// ByLabelWidth is the longest value of a -by flag that names its column;
// longer values are columns A, B, ..., each named above the tables.
const ByLabelWidth = 12

// New compares the sides, each one or more loaded records (its
// sittings), the first side the base. Every record must be of the same
// command. With opt.By set there must be one record, and the columns are
// the values of that flag in it, opt.Base's first (the first in the
// record's order when Base is "").
func New(rec record.Head, sides [][]*Loaded, opt Options) (*Comparison, error) {
	c := &Comparison{Head: rec, By: opt.By, Metric: opt.Metric, Floor: opt.Floor}
	var records []*Loaded
	for _, side := range sides {
		records = append(records, side...)
	}
	for _, l := range records[1:] {
		if l.Command != records[0].Command {
			return nil, &RecordError{l.Path, fmt.Sprintf("a record of pipebench %s, where %s is of pipebench %s: compare records of one command",
				l.Command, records[0].Path, records[0].Command)}
		}
	}
	var cols []column
	var err error
	if opt.By != "" {
		if len(records) != 1 {
			return nil, fmt.Errorf("-by %s compares the values of a flag inside one record: give one file, not %d", opt.By, len(records))
		}
		if cols, err = c.byInputs(records[0], opt.By, opt.Base); err != nil {
			return nil, err
		}
		c.OneSitting = true
	} else {
		cols = c.sideInputs(sides)
		c.differences(records)
		c.crossings(sides)
	}
	if err := c.checkMetric(cols); err != nil {
		return nil, err
	}
	c.othersWarnings(records)
	c.rows(cols)
	return c, nil
}

// sideInputs are the columns of sides of records, and their Inputs.
func (c *Comparison) sideInputs(sides [][]*Loaded) []column {
	var cols []column
	c.Sittings = true
	for i, side := range sides {
		col := column{label: string(rune('A' + i%26)), configs: map[string][]*Sampled{}}
		if len(sides) > 26 {
			col.label = fmt.Sprint(i + 1)
		}
		c.Sittings = c.Sittings && len(side) > 1
		sd := Side{Label: col.label}
		for j, l := range side {
			label := col.label
			if len(side) > 1 {
				label += fmt.Sprint(j + 1)
			}
			sd.Records = append(sd.Records, len(c.Inputs))
			c.Inputs = append(c.Inputs, inputOf(l, label, col.label))
			for _, s := range l.Configs {
				col.add(s)
			}
		}
		c.Sides = append(c.Sides, sd)
		cols = append(cols, col)
	}
	return cols
}

// byInputs are the columns of one record's values of flag, base's first,
// and their Inputs.
func (c *Comparison) byInputs(l *Loaded, flag, base string) ([]column, error) {
	cols, err := byColumns(l, flag)
	if err != nil {
		return nil, err
	}
	if base != "" {
		i := slices.IndexFunc(cols, func(col column) bool { return col.label == base })
		if i < 0 {
			var vs []string
			for _, col := range cols {
				vs = append(vs, col.label)
			}
			return nil, fmt.Errorf("-base %s: not a value of -%s in %s (%s)", base, flag, l.Path, strings.Join(vs, ", "))
		}
		cols = append(append([]column{cols[i]}, cols[:i]...), cols[i+1:]...)
	}
	long := slices.ContainsFunc(cols, func(col column) bool { return len(col.label) > ByLabelWidth })
	for i := range cols {
		in := inputOf(l, cols[i].label, cols[i].label)
		if long {
			in.Value = cols[i].label
			in.Label = string(rune('A' + i%26))
			in.Side, cols[i].label = in.Label, in.Label
		}
		c.Sides = append(c.Sides, Side{Label: in.Label, Records: []int{i}})
		c.Inputs = append(c.Inputs, in)
	}
	return cols, nil
}

// inputOf describes record l as the input labelled label of side.
func inputOf(l *Loaded, label, side string) Input {
	return Input{Label: label, Side: side, Path: l.Path, Command: l.CommandLine(),
		Started: l.Started.Format("2006-01-02 15:04 MST"), Machine: shortMachine(&l.Environment), Build: l.Pipebench.String()}
}

// checkMetric refuses a -metric that is not a figure of every compared
// configuration, naming those that are; a figure is named as the tables
// print it, its unit optional ("cpu/token" names "cpu ns/token").
func (c *Comparison) checkMetric(cols []column) error {
	if c.Metric == "" {
		return nil
	}
	var common []string
	first := true
	for _, col := range cols {
		for _, ss := range col.configs {
			var names []string
			for _, s := range ss {
				for _, m := range s.Order {
					names = append(names, m.Name)
				}
			}
			if first {
				common, first = names, false
				continue
			}
			common = slices.DeleteFunc(common, func(n string) bool { return !slices.Contains(names, n) })
		}
	}
	for _, n := range common {
		// A figure is named as printed, its unit optional: "cpu/token"
		// names "cpu ns/token".
		if n == c.Metric || strings.Replace(n, " ns", "", 1) == c.Metric {
			c.Metric = n
			return nil
		}
	}
	return fmt.Errorf("-metric %q: not a figure of every compared configuration: want one of %s", c.Metric, strings.Join(common, ", "))
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
			cols = append(cols, column{label: v, configs: map[string][]*Sampled{}})
		}
		rest := *s
		rest.Key, rest.Label = withoutFlag(s.Key, flag, v), withoutFlag(s.Label, flag, v)
		cols[index[v]].add(&rest)
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

// shortMachine is what a comparison's head says of a record's machine;
// the rest of it is compared fact by fact (Differences).
func shortMachine(e *envinfo.Environment) string {
	return fmt.Sprintf("Linux %s, %s, %d cores, clock %s, %s", e.Kernel, e.CPU(), e.Cores, e.ClockSource, e.GoVersion)
}
