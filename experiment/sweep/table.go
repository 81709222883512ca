package sweep

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pipebench/pipebench/stats"
)

// Ratio is a column of the table: Num's median evts/sec over Den's, in
// the same row.
type Ratio struct{ Num, Den string }

func (r Ratio) String() string { return r.Num + "/" + r.Den }

// MarshalText writes the ratio as the record names it: "epoll/poll".
func (r Ratio) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText reads a ratio as the record names it.
func (r *Ratio) UnmarshalText(b []byte) error {
	num, den, ok := strings.Cut(string(b), "/")
	if !ok || num == "" || den == "" {
		return fmt.Errorf("%q is not a ratio: want BACKEND/BACKEND such as epoll/poll", b)
	}
	*r = Ratio{Num: num, Den: den}
	return nil
}

// DefaultRatios puts the last backend listed over each of the others: for
// poll,select,epoll that is epoll/poll and epoll/select. One backend gives
// no ratio.
func DefaultRatios(backends []string) []Ratio {
	if len(backends) < 2 {
		return nil
	}
	last := backends[len(backends)-1]
	var rs []Ratio
	for _, b := range backends[:len(backends)-1] {
		rs = append(rs, Ratio{Num: last, Den: b})
	}
	return rs
}

// ParseRatios reads a list such as "epoll/poll,epoll/select"; both sides
// must be backends of the
func ParseRatios(s string, backends []string) ([]Ratio, error) {
	var rs []Ratio
	for _, f := range strings.Split(s, ",") {
		num, den, ok := strings.Cut(strings.TrimSpace(f), "/")
		if !ok || num == "" || den == "" {
			return nil, fmt.Errorf("%q is not a ratio: want BACKEND/BACKEND such as epoll/poll", f)
		}
		for _, b := range []string{num, den} {
			if !slices.Contains(backends, b) {
				return nil, fmt.Errorf("ratio %s: %q is not in the sweep's backends (%s)", f, b, strings.Join(backends, ","))
			}
		}
		rs = append(rs, Ratio{Num: num, Den: den})
	}
	return rs, nil
}

// CellState says what a table cell holds.
type CellState int

const (
	// CellNotRun: the point was not reached (interrupt or failure).
	CellNotRun CellState = iota
	// CellMeasured: Value holds the point's figure.
	CellMeasured
	// CellSkipped: the point cannot run here (descriptor limit).
	CellSkipped
)

// Cell is one backend's figure in one row.
type Cell struct {
	State CellState
	Value float64
	// Noisy marks a median whose run varied more than summary.NoisyCV.
	Noisy bool
}

// Row is one (pipes, tokens in flight, writers, readers) setting.
type Row struct {
	Pipes    int
	InFlight int
	Writers  int // 0 when the sweep does not cross writers
	Readers  int // 0 when the sweep does not cross readers
	// Cells has one entry per column of the table's Backends.
	Cells []Cell
	// Ratios has one entry per Ratio of the table; OK is false when either
	// side is missing.
	Ratios []RatioValue
}

// RatioValue is one ratio cell.
type RatioValue struct {
	Value float64
	OK    bool
}

// Table is a sweep laid out for reading: rows = pipes (and tokens in flight
// when several were swept), columns = backends, then ratio columns.
type Table struct {
	// What the cells hold, such as "median evts/sec".
	What     string
	Backends []string
	Ratios   []Ratio
	Rows     []Row
	// ByInFlight is set when the sweep crossed several tokens-in-flight
	// values, so that rows need that column too; ByWriters and ByReaders
	// likewise for writers and readers.
	ByInFlight, ByWriters, ByReaders bool
	// PerMs divides every cell by 1000: events per millisecond, the unit
	// of stress-epoll's table.
	PerMs bool
}

// EventsTable is the sweep's main table: median evts/sec after warm-up,
// with the given ratio columns; perMs gives events per millisecond
// instead.
func EventsTable(r *Result, ratios []Ratio, perMs bool) Table {
	if perMs {
		t := buildTable(r, "median evts/ms", func(p Point) (float64, bool) { return p.EventsPerSec / 1000, true }, ratios)
		t.PerMs = true
		return t
	}
	return buildTable(r, "median evts/sec", func(p Point) (float64, bool) { return p.EventsPerSec, true }, ratios)
}

// SamplesTable is samples per call in the same layout, and whether it
// varies enough across the sweep to be worth showing (with one token in
// flight it is 1 everywhere).
func SamplesTable(r *Result) (Table, bool) {
	t := buildTable(r, "samples/call", func(p Point) (float64, bool) { return p.SamplesPerCall, p.SamplesApply }, nil)
	return t, SamplesVary(r.Points)
}

// CostTables are what a token costs, in the same layout: system
// calls per token and CPU per token (every thread of every process that
// took part) over each whole run; none when no point has them (a sweep
// saved before they were kept). The noisy mark is evts/sec's and is left
// off.
func CostTables(r *Result) []Table {
	var ts []Table
	for _, c := range []struct {
		what string
		of   func(Point) float64
	}{
		{"syscalls/token", func(p Point) float64 { return p.SyscallsPerToken }},
		{"cpu ns/token", func(p Point) float64 { return p.CPUPerToken }},
	} {
		if !slices.ContainsFunc(r.Points, func(p Point) bool { return c.of(p) > 0 }) {
			continue
		}
		t := buildTable(r, c.what, func(p Point) (float64, bool) { return c.of(p), true }, nil)
		for _, row := range t.Rows {
			for i := range row.Cells {
				row.Cells[i].Noisy = false
			}
		}
		ts = append(ts, t)
	}
	return ts
}

func cellAt(cs []Cell, i int) Cell {
	if i < 0 {
		return Cell{}
	}
	return cs[i]
}

type rowKey struct{ pipes, inflight, writers, readers int }

func rowOf(k Key) rowKey { return rowKey{k.Pipes, k.InFlight, k.Writers, k.Readers} }

func buildTable(r *Result, what string, value func(Point) (float64, bool), ratios []Ratio) Table {
	t := Table{What: what, Backends: r.Grid.Backends, Ratios: ratios, ByInFlight: len(r.Grid.InFlight) > 1,
		ByWriters: len(r.Grid.Writers) > 1, ByReaders: len(r.Grid.Readers) > 1}
	col := func(b string) int { return slices.Index(t.Backends, b) }
	cells := map[rowKey][]Cell{}
	at := func(k Key) *Cell {
		rk := rowOf(k)
		if cells[rk] == nil {
			cells[rk] = make([]Cell, len(t.Backends))
		}
		i := col(k.Backend)
		if i < 0 {
			return &Cell{} // not a column: nowhere to show it
		}
		return &cells[rk][i]
	}
	// With several rounds a key has a point per round: the cell is the
	// median of their figures, noisy when any run was.
	values, noisyKey := map[Key][]float64{}, map[Key]bool{}
	for _, p := range r.Points {
		if v, ok := value(p); ok {
			values[p.Key] = append(values[p.Key], v)
			noisyKey[p.Key] = noisyKey[p.Key] || p.Noisy
		}
	}
	for k, vs := range values {
		*at(k) = Cell{State: CellMeasured, Value: stats.Median(vs), Noisy: noisyKey[k]}
	}
	for _, s := range r.Skipped {
		*at(s.Key) = Cell{State: CellSkipped}
	}
	for _, k := range r.Keys() {
		rk := rowOf(k)
		cs, ok := cells[rk]
		if last := len(t.Rows) - 1; !ok || (last >= 0 && rowOf(t.Rows[last].key()) == rk) {
			continue // not reached, or already laid out
		}
		row := Row{Pipes: k.Pipes, InFlight: k.InFlight, Writers: k.Writers, Readers: k.Readers, Cells: cs}
		for _, ra := range ratios {
			num, den := cellAt(cs, col(ra.Num)), cellAt(cs, col(ra.Den))
			ok := num.State == CellMeasured && den.State == CellMeasured && den.Value > 0
			rv := RatioValue{OK: ok}
			if ok {
				rv.Value = num.Value / den.Value
			}
			row.Ratios = append(row.Ratios, rv)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// key is the row's setting as a point's key (no backend).
func (r Row) key() Key {
	return Key{Pipes: r.Pipes, InFlight: r.InFlight, Writers: r.Writers, Readers: r.Readers}
}
