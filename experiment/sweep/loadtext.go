package sweep

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"github.com/pipebench/pipebench/experiment/text"
)

// loadWidth is the most columns the load table's text takes.
const loadWidth = 80

// writeLoad writes an open-loop sweep (-rate): how it ran, the saturation
// runs when its rates are fractions of them, a row per backend and rate,
// what the columns and the mark mean, then the points that were skipped,
// not run or failed, and the record's last lines.
func (d *Doc) writeLoad(w io.Writer, ew *text.Printer) error {
	r := d.Result
	on := ""
	if d.Kernel != "" {
		on = ", Linux " + d.Kernel
	}
	head := fmt.Sprintf("open loop: a paced writer offers each point its rate, tokens/s; %d warm-up interval(s) left out %s%s",
		r.Settings.Warmup, settingsNote(r), on)
	for _, l := range text.Wrap(head, loadWidth) {
		ew.Printf("%s\n", l)
	}
	if r.Grid.OfSaturation {
		ew.Printf("saturation, measured first: an unbounded writer (-l 0), tokens/s\n")
		for _, p := range r.Saturation {
			ew.Printf("  %s: %s\n", p.Key, text.Num(p.TokensPerSec))
		}
	}
	rows := LoadTable(r)
	if len(rows) > 0 {
		ew.Printf("\n")
		loadGrid(r, rows).Write(ew, false)
		for _, l := range text.Wrap(loadNotes(rows), loadWidth) {
			ew.Printf("%s\n", l)
		}
	}
	writeMissing(ew, r)
	d.writeMachine(ew)
	if ew.Err() == nil {
		ew.Keep(d.Head.WriteLines(w))
	}
	return ew.Err()
}

// loadGrid lays the rows out: backend, the swept settings, the rate as
// given (and what it offered, for a fraction of saturation), then the
// received rate (marked past saturation), CPU per event, idle, involuntary
// context switches per second and, with -latency, the p99 latency.
func loadGrid(r *Result, rows []LoadRow) *text.Table {
	pipes, writers, readers := len(r.Grid.Pipes) > 1, len(r.Grid.Writers) > 1, len(r.Grid.Readers) > 1
	latency := false
	for _, row := range rows {
		latency = latency || row.Latency != nil
	}
	head := []string{"backend"}
	add := func(on bool, h string) {
		if on {
			head = append(head, h)
		}
	}
	add(pipes, "pipes")
	add(writers, "writers")
	add(readers, "readers")
	add(true, "rate")
	add(r.Grid.OfSaturation, "offered")
	add(true, "received")
	add(true, "cpu/evt")
	add(true, "idle")
	add(true, "invol cs/s")
	add(latency, "p99")
	tb := &text.Table{Head: head, Right: make([]bool, len(head))}
	for i := 1; i < len(head); i++ {
		tb.Right[i] = true
	}
	for _, row := range rows {
		line := []string{row.Backend}
		cell := func(on bool, s string) {
			if on {
				line = append(line, s)
			}
		}
		cell(pipes, strconv.Itoa(row.Pipes))
		cell(writers, strconv.Itoa(row.Writers))
		cell(readers, strconv.Itoa(row.Readers))
		cell(true, RateText(row.Rate, row.OfSaturation))
		cell(r.Grid.OfSaturation, text.Num(row.Offered))
		received := text.Num(row.Received)
		if row.Saturated > 0 {
			received += "!"
		}
		cell(true, received)
		cell(true, text.Nanos(row.CPUPerEvent))
		idle := "-"
		if row.Idle != nil {
			idle = fmt.Sprintf("%.1f%%", 100**row.Idle)
		}
		cell(true, idle)
		cell(true, text.Num(row.InvoluntaryPerSec))
		p99 := "-"
		if row.Latency != nil {
			p99 = text.Nanos(row.Latency.P99)
		}
		cell(latency, p99)
		tb.Rows = append(tb.Rows, line)
	}
	return tb
}

// loadNotes says what the load table's columns and its mark mean.
func loadNotes(rows []LoadRow) string {
	s := ""
	for _, row := range rows {
		if row.Saturated > 0 {
			s = "! past saturation (in at least one run): the writers or the readers fell behind the schedule. "
			break
		}
	}
	s += "cpu/evt: the run's processes' CPU per event; idle: of the CPUs the run may use, whatever used them; " +
		"invol cs/s: the run's processes' involuntary context switches per second"
	for _, row := range rows {
		if row.Latency != nil {
			return s + "; p99: latency from each token's scheduled send to its read"
		}
	}
	return s
}

// writeLoadCSV writes an open-loop sweep's rows: the key, runs, the
// pacing, the costs and the latency quantiles (ns; empty without
// -latency), one row per backend and rate.
func (d *Doc) writeLoadCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"backend", "pipes", "writers", "readers", "rate", "rate_of_saturation", "runs", "saturated_runs",
		"saturation", "offered", "sent", "received", "cpu_ns_per_event", "reader_cpu_ns_per_event", "writer_cpu_ns_per_event",
		"machine_cpu_ns_per_event", "idle_share", "involuntary_ctxsw_per_sec", "p50_ns", "p90_ns", "p99_ns", "p999_ns"})
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	opt := func(x *float64) string {
		if x == nil {
			return ""
		}
		return g(*x)
	}
	for _, row := range LoadTable(d.Result) {
		rec := []string{row.Backend, strconv.Itoa(row.Pipes), strconv.Itoa(row.Writers), strconv.Itoa(row.Readers),
			g(row.Rate), strconv.FormatBool(row.OfSaturation), strconv.Itoa(row.Runs), strconv.Itoa(row.Saturated),
			g(row.Saturation), g(row.Offered), g(row.Sent), g(row.Received), g(row.CPUPerEvent), g(row.ReaderCPU), g(row.WriterCPU),
			opt(row.MachineCPU), opt(row.Idle), g(row.InvoluntaryPerSec)}
		if l := row.Latency; l != nil {
			rec = append(rec, g(l.P50), g(l.P90), g(l.P99), g(l.P999))
		} else {
			rec = append(rec, "", "", "", "")
		}
		cw.Write(rec)
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write sweep csv: %w", err)
	}
	return nil
}
