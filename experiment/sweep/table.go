package sweep

import (
	"fmt"
	"slices"
	"strings"
)

// Ratio is a column of the table: Num's median evts/sec over Den's, in
// the same row.
type Ratio struct{ Num, Den string }

func (r Ratio) String() string { return r.Num + "/" + r.Den }

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
// must be backends of the sweep.
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
	// NotRun: the point was not reached (interrupt or failure).
	NotRun CellState = iota
	// Measured: Value holds the point's figure.
	Measured
	// Skipped: the point cannot run here (descriptor limit).
	Skipped
)

// Cell is one backend's figure in one row.
type Cell struct {
	State CellState
	Value float64
	// Noisy marks a median whose run varied more than report.NoisyCV.
	Noisy bool
}

// Row is one (pipes, tokens in flight) setting.
type Row struct {
	Pipes    int
	InFlight int
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
	// values, so that rows need that column too.
	ByInFlight bool
}

// EventsTable is the sweep's main table: median evts/sec after warm-up,
// with the given ratio columns.
func EventsTable(r *Result, ratios []Ratio) Table {
	return build(r, "median evts/sec", func(p Point) (float64, bool) { return p.EventsPerSec, true }, ratios)
}

// SamplesTable is samples per call in the same layout, and whether it
// varies enough across the sweep to be worth showing (with one token in
// flight it is 1 everywhere).
func SamplesTable(r *Result) (Table, bool) {
	t := build(r, "samples per call", func(p Point) (float64, bool) { return p.SamplesPerCall, p.SamplesApply }, nil)
	return t, SamplesVary(r.Points)
}

// SamplesVary reports whether samples per call differs across the points
// by more than 10%.
func SamplesVary(points []Point) bool {
	lo, hi := 0.0, 0.0
	for _, p := range points {
		if !p.SamplesApply || p.SamplesPerCall <= 0 {
			continue
		}
		if lo == 0 || p.SamplesPerCall < lo {
			lo = p.SamplesPerCall
		}
		hi = max(hi, p.SamplesPerCall)
	}
	return lo > 0 && hi > 1.1*lo
}

func cellAt(cs []Cell, i int) Cell {
	if i < 0 {
		return Cell{}
	}
	return cs[i]
}

type rowKey struct{ pipes, inflight int }

func build(r *Result, what string, value func(Point) (float64, bool), ratios []Ratio) Table {
	t := Table{What: what, Backends: r.Grid.Backends, Ratios: ratios, ByInFlight: len(r.Grid.InFlight) > 1}
	col := func(b string) int { return slices.Index(t.Backends, b) }
	cells := map[rowKey][]Cell{}
	at := func(k Key) *Cell {
		rk := rowKey{k.Pipes, k.InFlight}
		if cells[rk] == nil {
			cells[rk] = make([]Cell, len(t.Backends))
		}
		i := col(k.Backend)
		if i < 0 {
			return &Cell{} // not a column: nowhere to show it
		}
		return &cells[rk][i]
	}
	for _, p := range r.Points {
		if v, ok := value(p); ok {
			*at(p.Key) = Cell{State: Measured, Value: v, Noisy: p.Noisy}
		}
	}
	for _, s := range r.Skipped {
		*at(s.Key) = Cell{State: Skipped}
	}
	for _, k := range r.Grid.Keys() {
		rk := rowKey{k.Pipes, k.InFlight}
		cs, ok := cells[rk]
		if !ok || (len(t.Rows) > 0 && t.Rows[len(t.Rows)-1].Pipes == k.Pipes && t.Rows[len(t.Rows)-1].InFlight == k.InFlight) {
			continue // not reached, or already laid out
		}
		row := Row{Pipes: k.Pipes, InFlight: k.InFlight, Cells: cs}
		for _, ra := range ratios {
			num, den := cellAt(cs, col(ra.Num)), cellAt(cs, col(ra.Den))
			ok := num.State == Measured && den.State == Measured && den.Value > 0
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
