package sweep

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/pipebench/pipebench/experiment/fixture"
	"github.com/pipebench/pipebench/experiment/record"
)

// handMade is a sweep cut short: three rows measured (one point skipped at
// 20000 pipes for the descriptor limit), the 50000 row never reached.
func handMade() *Result {
	pt := func(b string, n int, v float64, noisy bool) Point {
		return Point{Key: Key{Backend: b, Pipes: n, InFlight: 1}, Writer: "self", EventsPerSec: v, Noisy: noisy, SamplesPerCall: 1, SamplesApply: true}
	}
	return &Result{
		Grid:     Grid{Backends: []string{"poll", "select", "epoll"}, Pipes: []int{10, 1000, 20000, 50000}, InFlight: []int{1}},
		Settings: Settings{Duration: "3s", Interval: "500ms", Warmup: 1, Writer: "self", Route: "random", Seed: 1},
		Points: []Point{
			pt("poll", 10, 100000, false), pt("select", 10, 80000, false), pt("epoll", 10, 200000, false),
			pt("poll", 1000, 1000, true), pt("select", 1000, 800, false), pt("epoll", 1000, 190000, false),
			pt("poll", 20000, 50, false), pt("epoll", 20000, 180000, false),
		},
		Skipped: []Missing{{Key: Key{Backend: "select", Pipes: 20000, InFlight: 1}, Reason: "-n 20000 needs 40010 descriptors"}},
		NotRun: []Missing{
			{Key: Key{Backend: "poll", Pipes: 50000, InFlight: 1}, Reason: "interrupted"},
		},
		Interrupted: true,
	}
}

func TestEventsTable(t *testing.T) {
	r := handMade()
	tb := EventsTable(r, DefaultRatios(r.Grid.Backends), false)
	if got := pipesOf(tb); !reflect.DeepEqual(got, []int{10, 1000, 20000}) {
		t.Fatalf("rows %v: want 10, 1000, 20000 (the row never reached is left out)", got)
	}
	if tb.ByInFlight {
		t.Error("one tokens-in-flight value needs no l column")
	}
	wantRatios := [][]RatioValue{
		{{2, true}, {2.5, true}},
		{{190, true}, {237.5, true}},
		{{3600, true}, {0, false}}, // select skipped: no epoll/select
	}
	for i, row := range tb.Rows {
		if !reflect.DeepEqual(row.Ratios, wantRatios[i]) {
			t.Errorf("row %d ratios %v, want %v", row.Pipes, row.Ratios, wantRatios[i])
		}
	}
	c := tb.Rows[1].Cells[0]
	if c.State != CellMeasured || c.Value != 1000 || !c.Noisy {
		t.Errorf("poll at 1000: %+v", c)
	}
	if s := tb.Rows[2].Cells[1].State; s != CellSkipped {
		t.Errorf("select at 20000 is %v, want skipped", s)
	}
}

func pipesOf(tb Table) []int {
	var ps []int
	for _, r := range tb.Rows {
		ps = append(ps, r.Pipes)
	}
	return ps
}

func TestEventsTableByInFlight(t *testing.T) {
	r := &Result{
		Grid: Grid{Backends: []string{"epoll"}, Pipes: []int{10}, InFlight: []int{1, 10}},
		Points: []Point{
			{Key: Key{Backend: "epoll", Pipes: 10, InFlight: 1}, EventsPerSec: 5},
			{Key: Key{Backend: "epoll", Pipes: 10, InFlight: 10}, EventsPerSec: 7},
		},
	}
	tb := EventsTable(r, nil, false)
	if !tb.ByInFlight || len(tb.Rows) != 2 || tb.Rows[1].InFlight != 10 || tb.Rows[1].Cells[0].Value != 7 {
		t.Errorf("table %+v: want one row per tokens-in-flight value", tb)
	}
}

func TestRatios(t *testing.T) {
	backends := []string{"poll", "select", "epoll"}
	if got, want := DefaultRatios(backends), []Ratio{{"epoll", "poll"}, {"epoll", "select"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("default ratios %v, want %v", got, want)
	}
	if got := DefaultRatios([]string{"epoll"}); got != nil {
		t.Errorf("one backend has no ratio, got %v", got)
	}
	cases := []struct {
		in   string
		want []Ratio
		err  string
	}{
		{in: "select/poll", want: []Ratio{{"select", "poll"}}},
		{in: "epoll/poll, poll/epoll", want: []Ratio{{"epoll", "poll"}, {"poll", "epoll"}}},
		{in: "epoll", err: `"epoll" is not a ratio`},
		{in: "epoll/", err: "is not a ratio"},
		{in: "epoll/kqueue", err: `"kqueue" is not in the sweep's backends (poll,select,epoll)`},
	}
	for _, c := range cases {
		got, err := ParseRatios(c.in, backends)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseRatios(%q) error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseRatios(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

func TestWriteText(t *testing.T) {
	r := handMade()
	var b bytes.Buffer
	if err := NewDoc(record.Head{}, r, DefaultRatios(r.Grid.Backends), false).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := `median evts/sec, 1 warm-up interval(s) left out (-d 3s per point, -i 500ms, writer self, -l 1)
pipes    poll   select   epoll  epoll/poll  epoll/select
   10  100000    80000  200000        2.00          2.50
 1000   1000*      800  190000         190           238
20000      50  skipped  180000        3600             -
* noisy: the run's evts/sec varied more than 5% between intervals

skipped:
  select at 20000 pipes, -l 1: -n 20000 needs 40010 descriptors
not run:
  poll at 50000 pipes, -l 1: interrupted
`
	if b.String() != want {
		t.Errorf("text\n got:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestReadBack: a sweep's record, its ratio columns, unit and crossings
// among it, reads back and writes the text it was written with.
func TestReadBack(t *testing.T) {
	r := handMade()
	fixture.CheckReadBack(t, NewDoc(record.Head{}, r, []Ratio{{"select", "poll"}}, true), &Doc{})
	c := crossed(3)
	c.Refine = &Refine{Factor: 1.25, Budget: 4, Added: []Key{{Backend: "poll", Pipes: 2}}, Spent: true}
	fixture.CheckReadBack(t, NewDoc(record.Head{}, c, DefaultRatios(c.Grid.Backends), false), &Doc{})
}

func TestWriteCSV(t *testing.T) {
	r := handMade()
	var b bytes.Buffer
	if err := NewDoc(record.Head{}, r, DefaultRatios(r.Grid.Backends), false).WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	want := "pipes,in_flight,poll,select,epoll,epoll/poll,epoll/select\n" +
		"10,1,100000,80000,200000,2,2.5\n" +
		"1000,1,1000,800,190000,190,237.5\n" +
		"20000,1,50,,180000,3600,\n"
	if b.String() != want {
		t.Errorf("csv\n got:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestWriteJSON(t *testing.T) {
	r := handMade()
	var b bytes.Buffer
	if err := record.Write(&b, "json", NewDoc(record.Head{}, r, DefaultRatios(r.Grid.Backends), false)); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Grid        Grid
		Points      []Point
		Skipped     []Missing
		NotRun      []Missing `json:"not_run"`
		Interrupted bool
		Ratios      []string `json:"ratio_columns"`
		Table       []struct {
			Pipes      int
			EvtsPerSec map[string]float64 `json:"evts_per_sec"`
			Skipped    []string
			Ratios     map[string]float64
		}
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if len(doc.Points) != 8 || len(doc.Skipped) != 1 || len(doc.NotRun) != 1 || !doc.Interrupted {
		t.Errorf("document lost points or reasons: %s", b.String())
	}
	if !reflect.DeepEqual(doc.Ratios, []string{"epoll/poll", "epoll/select"}) {
		t.Errorf("ratio columns %v", doc.Ratios)
	}
	last := doc.Table[2]
	if last.Pipes != 20000 || last.EvtsPerSec["epoll"] != 180000 || !reflect.DeepEqual(last.Skipped, []string{"select"}) {
		t.Errorf("last row %+v", last)
	}
	if _, ok := last.Ratios["epoll/select"]; ok || math.Abs(last.Ratios["epoll/poll"]-3600) > 1e-9 {
		t.Errorf("last row ratios %v: want epoll/poll only", last.Ratios)
	}
}

func TestWriteUnknownFormat(t *testing.T) {
	err := record.Write(&bytes.Buffer{}, "xml", NewDoc(record.Head{}, handMade(), nil, false))
	if err == nil || !strings.Contains(err.Error(), "want text, csv, json") {
		t.Errorf("error %v", err)
	}
}

// TestWriteTextCosts: system calls and CPU per token follow the evts/sec
// table, one grid each, without the noisy mark, when the points have them.
func TestWriteTextCosts(t *testing.T) {
	r := handMade()
	for i := range r.Points {
		r.Points[i].SyscallsPerToken = 2 / float64(i+1)
		r.Points[i].CPUPerToken = 1000 * float64(i+1)
	}
	var b bytes.Buffer
	if err := NewDoc(record.Head{}, r, nil, false).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := `
system calls per token over each whole run
pipes    poll   select   epoll
   10       2        1  0.6667
 1000     0.5      0.4  0.3333
20000  0.2857  skipped    0.25

CPU per token (ns) over each whole run
pipes  poll   select  epoll
   10  1000     2000   3000
 1000  4000     5000   6000
20000  7000  skipped   8000
`
	if !strings.Contains(b.String(), want) {
		t.Errorf("text\n got:\n%s\nwant it to contain:\n%s", b.String(), want)
	}
}

// TestSettingsNote checks that the header names the run settings that
// change what a sweep measures, and only those not at their default.
func TestSettingsNote(t *testing.T) {
	r := handMade()
	if got := settingsNote(r); strings.Contains(got, "-fd") || strings.Contains(got, "-nest") || strings.Contains(got, "-share") {
		t.Errorf("default settings: header %q names a setting left at its default", got)
	}
	r.Settings.Source, r.Settings.MaxEvents, r.Settings.Nest, r.Settings.Share = "eventfd", 1, 2, true
	want := "(-d 3s per point, -i 500ms, writer self, -l 1, -fd eventfd, -maxevents 1, -nest 2, -share)"
	if got := settingsNote(r); got != want {
		t.Errorf("header %q, want %q", got, want)
	}
}
