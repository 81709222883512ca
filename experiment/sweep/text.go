package sweep

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"github.com/pipebench/pipebench/experiment/record"
	"github.com/pipebench/pipebench/experiment/text"
	"github.com/pipebench/pipebench/pipebench"
)

// Doc is what pipebench sweep reports: the whole Result, the ratio
// columns and the table of median evts/sec with them. Its JSON is the
// sweep's record; WriteText and WriteCSV lay the table out from the
// points, the ratio columns and the unit, so that a record read back
// writes as it was written.
type Doc struct {
	record.Head
	*Result
	Ratios []Ratio   `json:"ratio_columns"`
	Table  []jsonRow `json:"table"`

	// Kernel is the kernel the sweep ran on, in the table's header: the
	// locks that several readers and writers contend on changed between
	// versions (ep_poll_callback's, 2019 and 2025).
	Kernel string `json:"kernel,omitempty"`
	// TableUnit is "evts/ms" when the table's cells are events per
	// millisecond (-unit ms); empty for evts/sec.
	TableUnit string `json:"table_unit,omitempty"`
	// LoadTable is an open-loop sweep's table (-rate), in place of Table:
	// a row per backend and rate.
	LoadTable []LoadRow `json:"load_table,omitempty"`
}

// NewDoc lays r, recorded as rec, out with the given ratio columns,
// in events per millisecond when perMs.
func NewDoc(rec record.Head, r *Result, ratios []Ratio, perMs bool) *Doc {
	d := &Doc{Head: rec, Result: r, Kernel: rec.Environment.Kernel, Ratios: ratios}
	if perMs {
		d.TableUnit = "evts/ms"
	}
	d.Table = jsonRows(d.events())
	if r.Grid.Open() {
		d.Table, d.LoadTable = []jsonRow{}, LoadTable(r)
	}
	return d
}

// events is the table of median evts/sec (or evts/ms) with the ratio
// columns.
func (d *Doc) events() Table { return EventsTable(d.Result, d.Ratios, d.TableUnit == "evts/ms") }

// WriteText writes the table of median evts/sec and where its curves
// cross, the samples-per-call table when it varies, then the points that were skipped, not run or
// failed, each with its reason; an open-loop sweep, its load table
// instead (loadtext.go).
func (d *Doc) WriteText(w io.Writer) error {
	ew := &text.Printer{W: w}
	if d.Result.Grid.Open() {
		return d.writeLoad(w, ew)
	}
	r, t := d.Result, d.events()
	on := ""
	if d.Kernel != "" {
		on = ", Linux " + d.Kernel
	}
	for _, l := range text.Wrap(fmt.Sprintf("%s, %d warm-up interval(s) left out %s%s", t.What, r.Settings.Warmup, settingsNote(r), on), textWidth) {
		ew.Printf("%s\n", l)
	}
	writeGrid(ew, t)
	if noisy(t) {
		ew.Printf("* noisy: the run's evts/sec varied more than 5%% between intervals\n")
	}
	writeCrossings(ew, r)
	if st, vary := SamplesTable(r); vary {
		ew.Printf("\n")
		for _, l := range text.Wrap(fmt.Sprintf("%s over each whole run %s", st.What, settingsNote(r)), textWidth) {
			ew.Printf("%s\n", l)
		}
		writeGrid(ew, st)
	}
	for _, ct := range CostTables(r) {
		ew.Printf("\n%s over each whole run\n", ct.What)
		writeGrid(ew, ct)
	}
	writeMissing(ew, r)
	d.writeMachine(ew)
	if ew.Err() == nil {
		ew.Keep(d.Head.WriteLines(w))
	}
	return ew.Err()
}

// writeMachine writes the machine block under the tables; a head not made
// by a command (a test's) has no machine.
func (d *Doc) writeMachine(ew *text.Printer) {
	if d.Head.Format == "" {
		return
	}
	for _, l := range record.MachineLines(d.Environment, false) {
		ew.Printf("%s\n", l)
	}
}

// writeMissing writes the points that were skipped, not run or failed,
// each with its reason, after a blank line.
func writeMissing(ew *text.Printer, r *Result) {
	blank := "\n" // one blank line before the first list
	list := func(title string, ms []Missing) {
		if len(ms) == 0 {
			return
		}
		ew.Printf("%s%s:\n", blank, title)
		blank = ""
		for _, m := range ms {
			line := fmt.Sprintf("%s: %s", m.Key, m.Reason)
			if m.Round > 0 {
				line = fmt.Sprintf("%s, round %d: %s", m.Key, m.Round, m.Reason)
			}
			for _, l := range text.WrapIndent(line, textWidth, "  ", "      ") {
				ew.Printf("%s\n", l)
			}
		}
	}
	list("skipped", r.Skipped)
	if r.Failure != nil {
		list("failed", []Missing{*r.Failure})
	}
	list("not run", r.NotRun)
}

func settingsNote(r *Result) string {
	s := r.Settings
	h := fmt.Sprintf("(-d %s per point, -i %s, writer %s", s.Duration, s.Interval, s.Writer)
	if r.Rounds > 1 {
		h = fmt.Sprintf("(%d runs a point in shuffled rounds, the median of theirs shown; -d %s each, -i %s, writer %s",
			r.Rounds, s.Duration, s.Interval, s.Writer)
	}
	if len(r.Grid.InFlight) == 1 && !r.Grid.Open() {
		h += fmt.Sprintf(", -l %d", r.Grid.InFlight[0])
	}
	if s.Source != "" && s.Source != pipebench.SourcePipe.String() {
		h += ", -fd " + s.Source
	}
	if s.MaxEvents > 0 {
		h += fmt.Sprintf(", -maxevents %d", s.MaxEvents)
	}
	if s.Nest > 0 {
		h += fmt.Sprintf(", -nest %d", s.Nest)
	}
	if s.Share {
		h += ", -share"
	}
	return h + ")"
}

func noisy(t Table) bool {
	for _, row := range t.Rows {
		for _, c := range row.Cells {
			if c.State == CellMeasured && c.Noisy {
				return true
			}
		}
	}
	return false
}

// keyHead heads the columns that name a row's setting: pipes, tokens in
// flight (named inFlight, left out when ""), then writers and readers when
// they were swept.
func (t Table) keyHead(inFlight string) []string {
	head := []string{"pipes"}
	if inFlight != "" {
		head = append(head, inFlight)
	}
	if t.ByWriters {
		head = append(head, "writers")
	}
	if t.ByReaders {
		head = append(head, "readers")
	}
	return head
}

// keyCells are row's values of the columns keyHead heads.
func (t Table) keyCells(row Row, inFlight string) []string {
	cells := []string{strconv.Itoa(row.Pipes)}
	if inFlight != "" {
		cells = append(cells, strconv.Itoa(row.InFlight))
	}
	if t.ByWriters {
		cells = append(cells, strconv.Itoa(row.Writers))
	}
	if t.ByReaders {
		cells = append(cells, strconv.Itoa(row.Readers))
	}
	return cells
}

// writeGrid lays a table out in right-aligned columns, cut into blocks of
// columns, each beginning with the row's setting, where it is wider than
// textWidth.
func writeGrid(ew *text.Printer, t Table) {
	inFlight := ""
	if t.ByInFlight {
		inFlight = "l"
	}
	header := append(t.keyHead(inFlight), t.Backends...)
	for _, ra := range t.Ratios {
		header = append(header, ra.String())
	}
	tb := &text.Table{Head: header, Right: make([]bool, len(header))}
	for i := range tb.Right {
		tb.Right[i] = true
	}
	for _, row := range t.Rows {
		line := t.keyCells(row, inFlight)
		for _, c := range row.Cells {
			line = append(line, cellText(c, t.What))
		}
		for _, rv := range row.Ratios {
			line = append(line, ratioText(rv))
		}
		tb.Rows = append(tb.Rows, line)
	}
	tb.WriteWidth(ew, textWidth, len(t.keyHead(inFlight)))
}

func cellText(c Cell, what string) string {
	switch c.State {
	case CellSkipped:
		return "skipped"
	case CellNotRun:
		return "-"
	}
	s := strconv.FormatFloat(c.Value, 'f', 0, 64)
	if what != "median evts/sec" && what != "median evts/ms" {
		s = text.Ratio(c.Value)
	}
	if c.Noisy {
		s += "*"
	}
	return s
}

func ratioText(rv RatioValue) string {
	switch {
	case !rv.OK:
		return "-"
	case rv.Value >= 100:
		return strconv.FormatFloat(rv.Value, 'f', 0, 64)
	case rv.Value >= 10:
		return strconv.FormatFloat(rv.Value, 'f', 1, 64)
	}
	return strconv.FormatFloat(rv.Value, 'f', 2, 64)
}

// jsonRow is one table row keyed by column name, so that a missing
// cell is simply absent.
type jsonRow struct {
	Pipes    int `json:"pipes"`
	InFlight int `json:"in_flight"`
	Writers  int `json:"writers,omitempty"`
	Readers  int `json:"readers,omitempty"`
	// EventsPerSec is in events per millisecond with -unit ms: the
	// document's table_unit says which.
	EventsPerSec map[string]float64 `json:"evts_per_sec"`
	Skipped      []string           `json:"skipped,omitempty"`
	Ratios       map[string]float64 `json:"ratios,omitempty"`
}

// jsonRows are t's rows keyed by column name.
func jsonRows(t Table) []jsonRow {
	rows := make([]jsonRow, 0, len(t.Rows))
	for _, row := range t.Rows {
		jr := jsonRow{Pipes: row.Pipes, InFlight: row.InFlight, Writers: row.Writers, Readers: row.Readers, EventsPerSec: map[string]float64{}}
		for i, c := range row.Cells {
			switch c.State {
			case CellMeasured:
				jr.EventsPerSec[t.Backends[i]] = c.Value
			case CellSkipped:
				jr.Skipped = append(jr.Skipped, t.Backends[i])
			}
		}
		for i, rv := range row.Ratios {
			if rv.OK {
				if jr.Ratios == nil {
					jr.Ratios = map[string]float64{}
				}
				jr.Ratios[t.Ratios[i].String()] = rv.Value
			}
		}
		rows = append(rows, jr)
	}
	return rows
}

// WriteCSV writes the table: pipes, in_flight, one column per backend
// (median evts/sec; empty when skipped or not run), then the ratios; an
// open-loop sweep, a row per backend and rate (loadtext.go).
func (d *Doc) WriteCSV(w io.Writer) error {
	if d.Result.Grid.Open() {
		return d.writeLoadCSV(w)
	}
	t := d.events()
	cw := csv.NewWriter(w)
	header := append(t.keyHead("in_flight"), t.Backends...)
	for _, ra := range d.Ratios {
		header = append(header, ra.String())
	}
	cw.Write(header)
	for _, row := range t.Rows {
		rec := t.keyCells(row, "in_flight")
		for _, c := range row.Cells {
			v := ""
			if c.State == CellMeasured && t.PerMs {
				v = strconv.FormatFloat(c.Value, 'g', 6, 64)
			} else if c.State == CellMeasured {
				v = strconv.FormatFloat(c.Value, 'f', 0, 64)
			}
			rec = append(rec, v)
		}
		for _, rv := range row.Ratios {
			v := ""
			if rv.OK {
				v = strconv.FormatFloat(rv.Value, 'g', 6, 64)
			}
			rec = append(rec, v)
		}
		cw.Write(rec)
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write sweep csv: %w", err)
	}
	return nil
}
