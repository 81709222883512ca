package reporttest

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"

	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/stats/report"
)

// BenchLine is one result line of the bench format, as benchfmt reads it.
type BenchLine struct {
	Name                          string
	Iters                         int
	NsPerEvent, EvtsPerSec        float64
	TokensPerSec, SamplesPerCall  float64
	SyscallsPerToken, CPUPerToken float64
}

var benchComment = regexp.MustCompile(`(?m)^# run ([0-9]+): no result line: (.+)$`)

// ParseBench reads the result lines of a bench output with benchfmt, and
// the runs that its comment lines say have none, by index.
func ParseBench(out []byte) ([]BenchLine, map[int]string, error) {
	rd := benchfmt.NewReader(bytes.NewReader(out), "bench")
	var lines []BenchLine
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.SyntaxError:
			return nil, nil, rec
		case *benchfmt.Result:
			l := BenchLine{Name: string(rec.Name.Full()), Iters: rec.Iters, SamplesPerCall: math.NaN()}
			for _, v := range rec.Values {
				unit, x := v.Unit, v.Value
				if v.OrigUnit != "" {
					unit, x = v.OrigUnit, v.OrigValue
				}
				switch unit {
				case "ns/event":
					l.NsPerEvent = x
				case "evts/sec":
					l.EvtsPerSec = x
				case "tokens/sec":
					l.TokensPerSec = x
				case "samples/call":
					l.SamplesPerCall = x
				case "syscalls/token":
					l.SyscallsPerToken = x
				case "cpu-ns/token":
					l.CPUPerToken = x
				}
			}
			lines = append(lines, l)
		}
	}
	if err := rd.Err(); err != nil {
		return nil, nil, err
	}
	missing := map[int]string{}
	for _, m := range benchComment.FindAllSubmatch(out, -1) {
		k, _ := strconv.Atoi(string(m[1]))
		missing[k] = string(m[2])
	}
	return lines, missing, nil
}

// CheckBench returns the invariants a bench output breaks on its own: every
// line's ns/event is 1e9 over its evts/sec, to the digits printed, and
// counts a positive number of events. It returns the lines.
func CheckBench(out []byte) ([]BenchLine, map[int]string, error) {
	lines, missing, err := ParseBench(out)
	if err != nil {
		return nil, nil, err
	}
	c := &checker{}
	for i, l := range lines {
		c.what = fmt.Sprintf("bench line %d: ", i+1)
		if l.Iters <= 0 || l.EvtsPerSec <= 0 {
			c.errorf("%d events at %v evts/sec", l.Iters, l.EvtsPerSec)
			continue
		}
		// ns/event to 0.1, evts/sec to 1.
		if want := 1e9 / l.EvtsPerSec; math.Abs(l.NsPerEvent-want) > 0.05+want*0.5/l.EvtsPerSec {
			c.errorf("%v ns/event, but %v evts/sec is %v ns/event", l.NsPerEvent, l.EvtsPerSec, want)
		}
		if !strings.HasPrefix(l.Name, "Pipes/backend=") {
			c.errorf("name %q", l.Name)
		}
	}
	return lines, missing, c.err()
}

// CheckBenchAgainst returns where the bench output of d disagrees with d:
// one line per run that is not left out, in order, with the events of its
// intervals after warm-up and its summary's figures; a comment line for
// each run left out, with the reason.
func CheckBenchAgainst(out []byte, d *report.Document) error {
	lines, missing, err := CheckBench(out)
	c := &checker{}
	if err != nil {
		c.errs = append(c.errs, err)
	}
	k := 0
	for i := range d.Runs {
		r := &d.Runs[i]
		c.what = fmt.Sprintf("bench run %d: ", r.Index)
		if r.LeftOut != "" {
			if missing[r.Index] != r.LeftOut {
				c.errorf("left out (%s), but the output says %q", r.LeftOut, missing[r.Index])
			}
			continue
		}
		if k >= len(lines) {
			c.errorf("no result line")
			continue
		}
		l := lines[k]
		k++
		var events uint64
		for _, iv := range r.Intervals[d.Config.Warmup:] {
			events += iv.Events
		}
		s := r.Summary
		c.eqU("iterations (events after warm-up)", uint64(l.Iters), events)
		if want := math.Round(s.EventsPerSec.Median); l.EvtsPerSec != want {
			c.errorf("%v evts/sec, the run's median is %v", l.EvtsPerSec, s.EventsPerSec.Median)
		}
		if want := math.Round(s.TokensPerSec); l.TokensPerSec != want {
			c.errorf("%v tokens/sec, the summary has %v", l.TokensPerSec, s.TokensPerSec)
		}
		if s.Applies && !near(l.SamplesPerCall, s.SamplesPerCall, 1e-3) {
			c.errorf("%v samples/call, the summary has %v", l.SamplesPerCall, s.SamplesPerCall)
		}
		if !near(l.SyscallsPerToken, s.SyscallsPerToken, 1e-3) {
			c.errorf("%v syscalls/token, the summary has %v", l.SyscallsPerToken, s.SyscallsPerToken)
		}
		if math.Abs(l.CPUPerToken-s.CPUPerToken) > 0.5 {
			c.errorf("%v cpu-ns/token, the summary has %v", l.CPUPerToken, s.CPUPerToken)
		}
	}
	if k != len(lines) {
		c.what = ""
		c.errorf("%d result lines for %d runs that count", len(lines), k)
	}
	return c.err()
}

// CheckCSVAgainst returns where the csv output of d disagrees with d: one
// row per interval of every run, its counts and rates, and the warm-up
// column marking the first -warmup intervals.
func CheckCSVAgainst(out []byte, d *report.Document) error {
	rows, err := csv.NewReader(bytes.NewReader(out)).ReadAll()
	if err != nil {
		return err
	}
	c := &checker{}
	if len(rows) == 0 || !reflect.DeepEqual(rows[0], report.CSVHeader) {
		c.errorf("header %v", rows[:min(1, len(rows))])
		return c.err()
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	rows = rows[1:]
	for _, r := range d.Runs {
		if r.Result == nil {
			continue
		}
		for _, iv := range r.Intervals {
			c.what = fmt.Sprintf("csv run %d interval %d: ", r.Index, iv.Index)
			if len(rows) == 0 {
				c.errorf("no row")
				return c.err()
			}
			row := rows[0]
			rows = rows[1:]
			get := func(name string) string { return row[col[name]] }
			u := func(name string) uint64 { x, _ := strconv.ParseUint(get(name), 10, 64); return x }
			f := func(name string) float64 { x, _ := strconv.ParseFloat(get(name), 64); return x }
			if get("run") != strconv.Itoa(r.Index) || get("interval") != strconv.Itoa(iv.Index) {
				c.errorf("row of run %s interval %s", get("run"), get("interval"))
			}
			warm := "0"
			if iv.Index <= d.Config.Warmup {
				warm = "1"
			}
			if get("warmup") != warm {
				c.errorf("warmup %s, want %s (-warmup %d)", get("warmup"), warm, d.Config.Warmup)
			}
			c.eqU("events", u("events"), iv.Events)
			c.eqU("tokens", u("tokens"), iv.Tokens)
			c.eqU("calls", u("calls"), iv.Calls)
			c.eqU("empty_calls", u("empty_calls"), iv.EmptyCalls)
			c.eqU("reads", u("reads"), iv.Reads)
			c.eqU("writes", u("writes"), iv.Writes)
			c.eqF("evts_per_sec", f("evts_per_sec"), iv.EventsPerSec)
			c.eqF("evts_per_sec from the row's counts", f("evts_per_sec"), float64(u("events"))/f("seconds"))
			checkReaderEvents(c, get("reader_events"), iv)
		}
	}
	if len(rows) > 0 {
		c.what = ""
		c.errorf("%d rows more than intervals", len(rows))
	}
	return c.err()
}

// CheckJSONAgainst decodes the json output of d, checks it (CheckDocument)
// and returns where it disagrees with d.
func CheckJSONAgainst(out []byte, d *report.Document) error {
	var got report.Document
	if err := json.Unmarshal(out, &got); err != nil {
		return fmt.Errorf("json output: %w", err)
	}
	c := &checker{}
	if err := CheckDocument(&got); err != nil {
		c.errs = append(c.errs, err)
	}
	if len(got.Runs) != len(d.Runs) {
		c.errorf("%d runs in the json, %d in the document", len(got.Runs), len(d.Runs))
		return c.err()
	}
	for i := range got.Runs {
		g, w := &got.Runs[i], &d.Runs[i]
		c.what = fmt.Sprintf("json run %d: ", w.Index)
		if (g.Result == nil) != (w.Result == nil) {
			c.errorf("result present %v, want %v", g.Result != nil, w.Result != nil)
			continue
		}
		if w.Result != nil && (g.Totals != w.Totals || g.Tail != w.Tail || g.Tokens != w.Tokens || len(g.Intervals) != len(w.Intervals)) {
			c.errorf("totals %+v tail %+v tokens %+v (%d intervals); want %+v %+v %+v (%d)", g.Totals, g.Tail, g.Tokens,
				len(g.Intervals), w.Totals, w.Tail, w.Tokens, len(w.Intervals))
		}
		if !reflect.DeepEqual(g.Summary, w.Summary) || g.LeftOut != w.LeftOut {
			c.errorf("summary %+v (left out %q), want %+v (%q)", g.Summary, g.LeftOut, w.Summary, w.LeftOut)
		}
	}
	c.what = ""
	if !reflect.DeepEqual(got.Summary, d.Summary) {
		c.errorf("across runs %+v, want %+v", got.Summary, d.Summary)
	}
	return c.err()
}

// checkReaderEvents checks a row's reader_events cell: each reader's
// events, as the interval holds them, adding up to its events; empty with
// one reader and one writer.
func checkReaderEvents(c *checker, cell string, iv pipebench.Interval) {
	fields := strings.Fields(cell)
	if len(fields) != len(iv.Readers) {
		c.errorf("reader_events %q for %d readers", cell, len(iv.Readers))
		return
	}
	var sum uint64
	for k, f := range fields {
		x, _ := strconv.ParseUint(f, 10, 64)
		c.eqU(fmt.Sprintf("reader_events[%d]", k), x, iv.Readers[k])
		sum += x
	}
	if len(fields) > 0 {
		c.eqU("reader_events added up", sum, iv.Events)
	}
}
