package sweep

import (
	"bytes"
	"encoding/csv"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pipebench/pipebench/experiment/record"
	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/stats"
)

// TestGridKeysRates: the rates run inside pipes, lowest first, each with
// every backend; a share of saturation says so in its key.
func TestGridKeysRates(t *testing.T) {
	g := Grid{Backends: []string{"uring", "epoll"}, Pipes: []int{1000, 10}, InFlight: []int{0}, Rates: []float64{0.9, 0.1}, OfSaturation: true}
	var got []string
	for _, k := range g.Keys() {
		got = append(got, k.String())
	}
	want := []string{
		"uring at 10 pipes, -rate 10%", "epoll at 10 pipes, -rate 10%", "uring at 10 pipes, -rate 90%", "epoll at 10 pipes, -rate 90%",
		"uring at 1000 pipes, -rate 10%", "epoll at 1000 pipes, -rate 10%", "uring at 1000 pipes, -rate 90%", "epoll at 1000 pipes, -rate 90%",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("keys\n got %q\nwant %q", got, want)
	}
	if g.Rates[0] != 0.9 {
		t.Errorf("Keys sorted the caller's rates in place: %v", g.Rates)
	}
	abs := Grid{Backends: []string{"epoll"}, Pipes: []int{10}, InFlight: []int{0}, Rates: []float64{1.5e6, 370e3}}
	if k := abs.Keys(); len(k) != 2 || k[0].String() != "epoll at 10 pipes, -rate 370k" || k[1].OfSaturation || !abs.Open() {
		t.Errorf("keys %v", k)
	}
	if (Grid{Backends: []string{"epoll"}, Pipes: []int{10}, InFlight: []int{1}}).Open() {
		t.Error("a grid without rates is open")
	}
}

func TestRateText(t *testing.T) {
	for _, c := range []struct {
		rate  float64
		share bool
		want  string
	}{
		{0.5, true, "50%"}, {1.1, true, "110%"}, {0.07, true, "7%"}, {183000, false, "183k"},
		{1.5e6, false, "1.5M"}, {370, false, "370"}, {1234567, false, "1.23457M"},
	} {
		if got := RateText(c.rate, c.share); got != c.want {
			t.Errorf("RateText(%v, %v) = %q, want %q", c.rate, c.share, got, c.want)
		}
	}
	if got := SaturationRate(0.5, 366917); got != 183000 {
		t.Errorf("half of 366917 is %v, want 183000 (three digits)", got)
	}
}

// pacedResult is a finished open-loop run at rate (0: an unbounded run
// moving sat tokens/s), a second a interval, with costs and latency.
func pacedResult(rate, sat float64) *pipebench.Result {
	moved := sat
	if rate > 0 {
		moved = min(rate, sat)
	}
	res := fakeResult(pipebench.WriterThread, moved, moved, moved)
	res.Elapsed = 3 * time.Second
	res.Totals.Tokens = res.Totals.Events
	// 3 intervals of moved events: 2 ns of the process's CPU an event, 1
	// of the reader's, 0.5 of the writer's; 100 involuntary switches a
	// second.
	res.Process = pipebench.Usage{User: time.Duration(3 * moved), System: time.Duration(3 * moved), Involuntary: 300}
	res.ReaderThread = pipebench.Usage{User: time.Duration(3 * moved)}
	res.WriterThread = pipebench.Usage{System: time.Duration(1.5 * moved)}
	if rate > 0 {
		res.Pacing = &pipebench.Pacing{Rate: rate, SentRate: moved, ReceivedRate: moved, Saturated: rate > sat}
		res.Latency = stats.NewHist(1e10)
		res.Latency.Record(uint64(rate)) // one token, as slow as the rate is high
	}
	return res
}

// TestRunSaturation: with shares of saturation, each configuration's
// saturation is measured once, before every round, by an unbounded run
// (-l 0, no rate) and kept; every point then runs at its share of it, in
// three significant digits, each round; the progress counts the
// saturation runs too.
func TestRunSaturation(t *testing.T) {
	g := Grid{Backends: []string{"uring", "epoll"}, Pipes: []int{1000}, InFlight: []int{0}, Rates: []float64{0.5, 1.1}, OfSaturation: true}
	sat := map[string]float64{"uring": 366917, "epoll": 400000}
	var mu sync.Mutex
	var calls []pipebench.Config
	run := func(p *pipebench.Prepared, _ pipebench.Observers) (*pipebench.Result, error) {
		cfg := p.Config()
		mu.Lock()
		calls = append(calls, cfg)
		mu.Unlock()
		return pacedResult(cfg.Rate, sat[cfg.Backend.Name]), nil
	}
	js := rateJobs(t, g)
	var last Progress
	res, err := Run(g, js, Options{Run: run, Rounds: 2, OnProgress: func(e Progress) { last = e }})
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 2+2*4 {
		t.Fatalf("%d runs, want 2 saturation runs and 4 points x 2 rounds", len(calls))
	}
	for i, c := range calls[:2] {
		if c.Rate != 0 || c.InFlight != 0 || c.Backend.Name != g.Backends[i] {
			t.Errorf("saturation run %d: -rate %v -l %d %s", i, c.Rate, c.InFlight, c.Backend.Name)
		}
	}
	rates := map[string][]float64{}
	for _, c := range calls[2:] {
		rates[c.Backend.Name] = append(rates[c.Backend.Name], c.Rate)
	}
	for b, want := range map[string][]float64{"uring": {183000, 404000}, "epoll": {200000, 440000}} {
		got := rates[b]
		if len(got) != 4 || !sameSet(got, want) {
			t.Errorf("%s ran at %v, want %v each round", b, got, want)
		}
	}
	if len(res.Saturation) != 2 || res.Saturation[0].TokensPerSec != 366917 || res.Saturation[0].Key.Rate != 0 {
		t.Errorf("saturation %+v", res.Saturation)
	}
	if got := res.SaturationOf(Key{Backend: "epoll", Pipes: 1000, Rate: 1.1, OfSaturation: true}); got != 400000 {
		t.Errorf("epoll's saturation %v", got)
	}
	if len(res.Points) != 8 || res.Crossings != nil {
		t.Errorf("%d points, crossings %+v: want 8 and none", len(res.Points), res.Crossings)
	}
	if last.Done != 10 || last.Total != 10 {
		t.Errorf("progress ended at %d of %d, want 10 of 10", last.Done, last.Total)
	}
}

func sameSet(got, want []float64) bool {
	for _, g := range got {
		found := false
		for _, w := range want {
			found = found || g == w
		}
		if !found {
			return false
		}
	}
	return true
}

// rateJobs are the prepared jobs of an open-loop grid, a writer thread
// at each point's rate (a share of saturation checked as a rate, as the
// command does); the points of more than 9000 pipes are over the
// descriptor limit, jobs to skip.
func rateJobs(t *testing.T, g Grid) []Job {
	var js []Job
	for _, k := range g.Keys() {
		j, err := NewJob(k, pipebench.Config{
			Workload:  pipebench.Workload{Pipes: k.Pipes, Rate: k.Rate},
			Readiness: pipebench.Readiness{Backend: testFactory(k.Backend)},
			Threads:   pipebench.Threads{Writer: pipebench.WriterThread},
			Window:    pipebench.Window{Duration: 3 * time.Second, Interval: time.Second},
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		js = append(js, j)
	}
	return js
}

// TestRunSaturationMissing: a configuration whose saturation run cannot
// run here (the descriptor limit) has its points skipped, saying why; a
// saturation run that fails ends the sweep, every point not run.
func TestRunSaturationMissing(t *testing.T) {
	g := Grid{Backends: []string{"epoll"}, Pipes: []int{1000, 1000000}, InFlight: []int{0}, Rates: []float64{0.5}, OfSaturation: true}
	res, err := Run(g, rateJobs(t, g), Options{Run: func(p *pipebench.Prepared, _ pipebench.Observers) (*pipebench.Result, error) {
		return pacedResult(p.Config().Rate, 1e5), nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Points) != 1 || res.Points[0].Pipes != 1000 || res.Points[0].Pacing.Rate != 50000 {
		t.Errorf("points %+v: want epoll's at 1000 pipes, at 50000", res.Points)
	}
	if len(res.Skipped) != 2 || res.Skipped[0].Key.Rate != 0 || res.Skipped[1].Key.Rate != 0.5 ||
		!strings.Contains(res.Skipped[1].Reason, "its saturation run (epoll at 1000000 pipes, -l 0) cannot run here") {
		t.Errorf("skipped %+v: want the saturation run and its point", res.Skipped)
	}
	g.Pipes = []int{1000}
	res, err = Run(g, rateJobs(t, g), Options{Rounds: 2, Run: func(*pipebench.Prepared, pipebench.Observers) (*pipebench.Result, error) {
		return nil, errors.New("boom")
	}})
	if err == nil || res.Failure == nil || len(res.NotRun) != 2 || len(res.Points) != 0 {
		t.Errorf("error %v, failure %+v, %d not run: want the failure and 1 point x 2 rounds not run", err, res.Failure, len(res.NotRun))
	}
}

// loadSweep is an open-loop sweep of two backends at two shares of their
// saturation, two rounds, epoll past saturation at 110% in one of them.
func loadSweep() *Result {
	r := &Result{
		Grid:     Grid{Backends: []string{"uring", "epoll"}, Pipes: []int{1000}, InFlight: []int{0}, Rates: []float64{0.5, 1.1}, OfSaturation: true},
		Settings: Settings{Duration: "3s", Interval: "500ms", Warmup: 1, Writer: "thread"},
		Rounds:   2,
	}
	sat := map[string]float64{"uring": 366917, "epoll": 400000}
	for _, b := range r.Grid.Backends {
		p := NewPoint(Key{Backend: b, Pipes: 1000}, pacedResult(0, sat[b]), 1)
		r.Saturation = append(r.Saturation, p)
	}
	for round := 1; round <= 2; round++ {
		for _, k := range r.Grid.Keys() {
			rate := SaturationRate(k.Rate, sat[k.Backend])
			res := pacedResult(rate, sat[k.Backend]*float64(round))
			p := NewPoint(k, res, 1)
			p.Round = round
			idle := 0.4 / k.Rate
			p.IdleShare = &idle
			r.Points = append(r.Points, p)
		}
	}
	return r
}

// TestLoadTable: a row per backend and rate in the grid's order, each
// figure the median of its rounds', past saturation counted.
func TestLoadTable(t *testing.T) {
	rows := LoadTable(loadSweep())
	if len(rows) != 4 {
		t.Fatalf("%d rows, want 4", len(rows))
	}
	r := rows[3] // epoll at 110%: 440000 offered, saturated in round 1 (it moved 400000)
	if r.Backend != "epoll" || r.Rate != 1.1 || r.Runs != 2 || r.Saturated != 1 || r.Offered != 440000 || r.Saturation != 400000 {
		t.Errorf("epoll at 110%%: %+v", r)
	}
	if r.Received != (400000+440000)/2 || r.Latency == nil || r.Latency.P99 <= 0 {
		t.Errorf("epoll at 110%%: received %v (want the median of 400000 and 440000), latency %+v", r.Received, r.Latency)
	}
	if r.InvoluntaryPerSec != 100 || r.Idle == nil || *r.Idle != 0.4/1.1 || r.CPUPerEvent != 2 || r.ReaderCPU != 1 || r.WriterCPU != 0.5 {
		t.Errorf("epoll at 110%%: invol %v/s, idle %v, cpu %v (reader %v, writer %v); want 100, 0.364, 2 (1, 0.5)",
			r.InvoluntaryPerSec, r.Idle, r.CPUPerEvent, r.ReaderCPU, r.WriterCPU)
	}
	if rows[0].Backend != "uring" || rows[0].Rate != 0.5 || rows[0].Saturated != 0 || rows[0].Offered != 183000 {
		t.Errorf("first row %+v: want uring at 50%%, 183000 offered", rows[0])
	}
	if LoadTable(handMade()) != nil {
		t.Error("a closed-loop sweep has a load table")
	}
}

// TestWriteLoad: the open-loop text names the saturation runs, has a row
// per backend and rate within 80 columns with the columns the issue asks
// for, marks the point past saturation and says what the columns mean;
// its CSV has a row per backend and rate; its JSON the load table.
func TestWriteLoad(t *testing.T) {
	d := NewDoc(record.Head{}, loadSweep(), nil, false)
	var b bytes.Buffer
	if err := d.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, s := range []string{
		"saturation, measured first: an unbounded writer (-l 0), tokens/s",
		"  uring at 1000 pipes, -l 0: 366.9k",
		"! past saturation",
		"p99: latency from each token's scheduled send to its read",
	} {
		if !strings.Contains(out, s) && !strings.Contains(strings.Join(strings.Fields(out), " "), s) {
			t.Errorf("text lacks %q:\n%s", s, out)
		}
	}
	head := false
	for _, l := range strings.Split(out, "\n") {
		head = head || reflect.DeepEqual(strings.Fields(l), []string{"backend", "rate", "offered", "received", "cpu/evt", "idle", "invol", "cs/s", "p99"})
		if n := len([]rune(l)); n > 80 && !strings.HasPrefix(l, "command") {
			t.Errorf("a line of %d columns: %q", n, l)
		}
		if strings.HasPrefix(l, "epoll") && strings.Contains(l, "110%") && !strings.Contains(l, "420k!") {
			t.Errorf("epoll at 110%% is not marked past saturation: %q", l)
		}
	}
	if !head {
		t.Errorf("no head backend, rate, offered, received, cpu/evt, idle, invol cs/s, p99:\n%s", out)
	}
	if first, _, _ := strings.Cut(out, "saturation,"); strings.Contains(first, "-l 0") || strings.Contains(out, "cross") {
		t.Errorf("the open-loop header names -l, or the text crossings:\n%s", out)
	}
	b.Reset()
	if err := d.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(recs) != 5 || recs[0][4] != "rate" || recs[4][0] != "epoll" || recs[4][7] != "1" {
		t.Errorf("csv %v (%v): want a header and 4 rows, epoll at 110%% saturated once", recs, err)
	}
	if len(d.LoadTable) != 4 || len(d.Table) != 0 {
		t.Errorf("the record's tables: load %d rows, events %d", len(d.LoadTable), len(d.Table))
	}
}
