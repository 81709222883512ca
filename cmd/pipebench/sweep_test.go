package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"github.com/pipebench/pipebench/internal/golden"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/experiment/sweep"
	"github.com/pipebench/pipebench/pipebench"
)

func TestSweepBadInput(t *testing.T) {
	cases := []struct{ name, args string }{
		{"sweep-unknown-backend", "sweep -b poll,kqueue"},
		{"sweep-pipes-not-a-number", "sweep -n 10,abc"},
		{"sweep-pipes-zero", "sweep -n 0,10"},
		{"sweep-pipes-empty-item", "sweep -n 10,,100"},
		{"sweep-pipes-twice", "sweep -n 10,100,10"},
		{"sweep-inflight-too-many", "sweep -l 1,5000"},
		{"sweep-unbounded-self", "sweep -l 0"},
		{"sweep-duration-zero", "sweep -d 0"},
		{"sweep-interval-longer", "sweep -d 1s -i 2s"},
		{"sweep-format-unknown", "sweep -format xml"},
		{"sweep-plot-extension", "sweep -plot scaling.pdf"},
		{"sweep-ref-without-plot", "sweep -ref testdata/sweep/bad-ref.csv"},
		{"sweep-ref-missing", "sweep -plot scaling.svg -ref testdata/sweep/missing.csv"},
		{"sweep-ref-bad-cell", "sweep -plot scaling.svg -ref testdata/sweep/bad-ref.csv"},
		{"sweep-ratio-unknown", "sweep -ratios epoll/kqueue"},
		{"sweep-bypass-flag", "sweep -f"},
		{"sweep-stray-argument", "sweep -n 10 extra"},
		{"sweep-writers-zero", "sweep -writers 0,2"},
		{"sweep-readers-too-many", "sweep -readers 1,2000"},
		{"sweep-writers-self", "sweep -writers 1,2"},
		{"sweep-unit-unknown", "sweep -unit us"},
		{"sweep-pipes-per-unknown", "sweep -pipes-per process"},
		{"sweep-refine-one-curve", "sweep -b epoll -n 1,100 -refine 1.25"},
		{"sweep-refine-one-pipes", "sweep -b poll,epoll -n 100 -refine 1.25"},
		{"sweep-refine-not-a-factor", "sweep -b poll,epoll -refine 1"},
		{"sweep-rate-zero", "sweep -rate 0"},
		{"sweep-rate-negative", "sweep -rate 100k,-5"},
		{"sweep-rate-share-zero", "sweep -rate 0%"},
		{"sweep-rate-share-too-large", "sweep -rate 10%,2000%"},
		{"sweep-rate-mixed", "sweep -rate 50%,100k"},
		{"sweep-rate-inflight", "sweep -rate 50% -l 1,4"},
		{"sweep-rate-self", "sweep -rate 100k -writer self"},
		{"sweep-rate-bypass", "sweep -b bypass -rate 0.5x"},
		{"sweep-rate-refine", "sweep -b poll,epoll -n 1,100 -rate 50% -refine 1.25"},
		{"sweep-rate-ref", "sweep -rate 50% -plot scaling.svg -ref testdata/sweep/bad-ref.csv"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stderr := badInput(t, c.args, "pipebench: sweep: ")
			if _, err := os.Stat("scaling.svg"); err == nil {
				os.Remove("scaling.svg")
				t.Errorf("bad input left a plot file behind")
			}
			golden.Check(t, "errors/"+c.name+".golden", []byte("$ pipebench "+c.args+"\n"+stderr))
		})
	}
}

func TestSweepHelp(t *testing.T) {
	code, stdout, _ := invoke(t, "sweep", "-h")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	for _, f := range []string{"-b", "-n", "-l", "-format", "-plot", "-ref", "-ratios", "-d", "-i", "-writer", "-warmup", "-rate"} {
		if !strings.Contains(stdout, "\n  "+f+" ") {
			t.Errorf("help does not describe %s", f)
		}
	}
	if !strings.Contains(stdout, "(default 3s)") || !strings.Contains(stdout, "(default poll,select,epoll)") {
		t.Errorf("help does not show the sweep's defaults:\n%s", stdout)
	}
}

// overLimit is a pipe count that -writer self cannot fit under this
// process's hard descriptor limit, so that its runs are refused before any
// pipe is made.
func overLimit(t *testing.T) int {
	t.Helper()
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	n := int(lim.Max/2) + 100
	if n > maxPipes {
		t.Skipf("the hard descriptor limit %d admits every -n", lim.Max)
	}
	return n
}

// A short real sweep: every point measured with its tokens accounted for,
// the point over the descriptor limit skipped with its reason, the table in
// the grid's shape.
func TestSweepShort(t *testing.T) {
	big := overLimit(t)
	args := "sweep -b poll,epoll -n 10,40," + strconv.Itoa(big) + " -d 300ms -i 100ms -format json"
	code, stdout, stderr := invoke(t, strings.Fields(args)...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		sweep.Result
		Table []struct {
			Pipes        int
			EventsPerSec map[string]float64 `json:"evts_per_sec"`
			Skipped      []string
			Ratios       map[string]float64
		}
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("not one JSON document: %v\n%s", err, stdout)
	}
	if len(doc.Points) != 4 || len(doc.Skipped) != 2 || len(doc.NotRun) != 0 || doc.Interrupted {
		t.Fatalf("%d points, %d skipped, %d not run: %s", len(doc.Points), len(doc.Skipped), len(doc.NotRun), stdout)
	}
	for _, p := range doc.Points {
		// No speed is asserted: the machine is shared, and an interval may
		// pass with the reader off the CPU.
		if p.Intervals < 2 || p.Writer != "self" || p.Backend == "" {
			t.Errorf("point %+v", p)
		}
		if tk := p.Tokens; tk.Lost != 0 || tk.Sent != tk.Received+tk.Drained || tk.Received == 0 {
			t.Errorf("%s: tokens %+v", p.Key, tk)
		}
	}
	for _, s := range doc.Skipped {
		if s.Pipes != big || !strings.Contains(s.Reason, "descriptors in one process") {
			t.Errorf("skipped %+v", s)
		}
	}
	if len(doc.Table) != 3 {
		t.Fatalf("table %+v: want rows 10, 40, %d", doc.Table, big)
	}
	for _, row := range doc.Table[:2] {
		epoll, poll := row.EventsPerSec["epoll"], row.EventsPerSec["poll"]
		ratio, ok := row.Ratios["epoll/poll"]
		if len(row.EventsPerSec) != 2 || ok != (poll > 0) || ok && ratio != epoll/poll {
			t.Errorf("row %+v: want both backends and epoll/poll = %v/%v", row, epoll, poll)
		}
	}
	if last := doc.Table[2]; len(last.EventsPerSec) != 0 || len(last.Skipped) != 2 {
		t.Errorf("row %+v: want both backends skipped", last)
	}
	// stderr is not a terminal here: one plain progress line per point.
	if n := strings.Count(stderr, "\nsweep "); n != 6 || !strings.Contains(stderr, "sweep 6/6 (") {
		t.Errorf("want six progress lines, got:\n%s", stderr)
	}
}

// Text and CSV, several tokens-in-flight values, a plot with the 2002
// reference beside it.
func TestSweepTablePlot(t *testing.T) {
	dir := t.TempDir()
	svg := filepath.Join(dir, "scaling.svg")
	args := []string{"sweep", "-b", "select,epoll", "-n", "30,10", "-l", "1,3", "-d", "200ms", "-i", "50ms",
		"-plot", svg, "-ref", filepath.Join("..", "..", "testdata", "pipetest-2002.csv")}
	code, stdout, stderr := invoke(t, args...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := tableLines(stdout)
	if len(lines) < 5 || strings.Join(strings.Fields(lines[0]), " ") != "pipes l select epoll epoll/select" {
		t.Fatalf("table:\n%s", stdout)
	}
	for i, want := range []string{"10 1", "10 3", "30 1", "30 3"} {
		if !strings.HasPrefix(strings.Join(strings.Fields(lines[1+i]), " "), want+" ") {
			t.Errorf("row %d %q: want it to start with %q", i, lines[1+i], want)
		}
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("<?xml")) || !bytes.Contains(b, []byte("<svg")) || !bytes.Contains(b, []byte("pipetest 2002: poll()")) {
		t.Errorf("%s is not the plot with its reference (%d bytes)", svg, len(b))
	}
	if !strings.Contains(stderr, "plot written to "+svg) {
		t.Errorf("stderr does not say where the plot went:\n%s", stderr)
	}

	code, stdout, stderr = invoke(t, "sweep", "-b", "poll", "-n", "10", "-d", "200ms", "-i", "50ms", "-format", "csv")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	recs, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	if err != nil || len(recs) != 2 || strings.Join(recs[0], ",") != "pipes,in_flight,poll" || recs[1][0] != "10" {
		t.Errorf("csv %q: %v", stdout, err)
	}
}

// TestSweepRate: an open-loop sweep at shares of saturation measures
// each backend's saturation first and says so, runs every point at its
// share of it with a paced writer thread and -latency, accounts for every
// token, lays out a row per backend and rate, keeps the saturation and
// the load table in the record, and draws latency and CPU per event
// against the offered load with the saturation marked.
func TestSweepRate(t *testing.T) {
	dir := t.TempDir()
	svg, js := filepath.Join(dir, "load.svg"), filepath.Join(dir, "load.json")
	code, stdout, stderr := invoke(t, strings.Fields("sweep -b poll,epoll -n 20 -rate 20%,120% -latency -d 300ms -i 100ms -plot "+svg)...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "sweep: first the saturation of each of 2 configurations (an unbounded writer, -l 0)") {
		t.Errorf("stderr does not say the saturation comes first:\n%s", stderr)
	}
	for _, want := range []string{"saturation, measured first: an unbounded writer (-l 0), tokens/s\n  poll at 20 pipes, -l 0: ",
		"writer thread)", "invol cs/s"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	var rows []string
	for _, l := range strings.Split(stdout, "\n") {
		if f := strings.Fields(l); len(f) == 8 && (f[0] == "poll" || f[0] == "epoll") {
			rows = append(rows, f[0]+" "+f[1])
		}
	}
	if got := strings.Join(rows, ", "); got != "poll 20%, epoll 20%, poll 120%, epoll 120%" {
		t.Errorf("rows %q:\n%s", got, stdout)
	}
	b, err := os.ReadFile(svg)
	if err != nil || !bytes.Contains(b, []byte("poll p99.9")) || !bytes.Contains(b, []byte("(unbounded writer)")) {
		t.Errorf("the plot lacks the latency curves or the saturation mark (%v)", err)
	}

	code, _, stderr = invoke(t, strings.Fields("sweep -b epoll -n 20 -rate 20% -d 300ms -i 100ms -o "+js)...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err = os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Flags map[string]string
		sweep.Result
		LoadTable []sweep.LoadRow `json:"load_table"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Flags["rate"] != "20%" || len(doc.Saturation) != 1 || doc.Saturation[0].HeldTokensPerSec <= 0 || len(doc.Points) != 1 || len(doc.LoadTable) != 1 {
		t.Fatalf("record: flags %v, %d saturation, %d points, %d load rows", doc.Flags, len(doc.Saturation), len(doc.Points), len(doc.LoadTable))
	}
	p := doc.Points[0]
	want := sweep.SaturationRate(0.2, doc.Saturation[0].HeldTokensPerSec)
	if p.Pacing == nil || p.Pacing.Rate != want || p.Writer != "thread" || p.InFlight != 0 {
		t.Errorf("point %+v: want a writer thread paced at %v, 20%% of the saturation", p, want)
	}
	if tk := p.Tokens; tk.Lost != 0 || tk.Sent != tk.Received+tk.Drained || tk.Received == 0 {
		t.Errorf("tokens %+v", tk)
	}
}

// withRunPoint replaces the run of each point for one test.
func withRunPoint(t *testing.T, run func(*pipebench.Prepared, pipebench.Observers) (*pipebench.Result, error)) {
	t.Helper()
	old := runPoint
	runPoint = run
	t.Cleanup(func() { runPoint = old })
}

// runValid runs p, as the sweep's points do, and fails the test when a
// result that Run returned without an error breaks an invariant
// (Result.CheckValid).
func runValid(t *testing.T, p *pipebench.Prepared, obs pipebench.Observers) (*pipebench.Result, error) {
	res, err := p.Run(obs)
	if err == nil {
		if verr := res.CheckValid(); verr != nil {
			t.Error(verr)
		}
	}
	return res, err
}

func TestSweepFailedRun(t *testing.T) {
	calls := 0
	withRunPoint(t, func(p *pipebench.Prepared, obs pipebench.Observers) (*pipebench.Result, error) {
		calls++
		if calls == 2 {
			return nil, errors.New("stalled: no event for 2s")
		}
		return runValid(t, p, obs)
	})
	code, stdout, stderr := invoke(t, strings.Fields("sweep -b poll,epoll -n 10,20 -d 200ms -i 50ms")...)
	if code != exitFailed {
		t.Fatalf("exit %d, want %d: %s", code, exitFailed, stderr)
	}
	if calls != 2 {
		t.Errorf("%d runs: the sweep must end at the failed one", calls)
	}
	for _, want := range []string{"failed:\n  epoll at 10 pipes, -l 1: stalled", "not run:\n  poll at 20 pipes, -l 1: not run: the sweep ended at a failed run"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.HasSuffix(stderr, "pipebench: sweep: epoll at 10 pipes, -l 1: stalled: no event for 2s\n") {
		t.Errorf("stderr must end with the error naming the point:\n%s", stderr)
	}
}

func TestSweepInterrupt(t *testing.T) {
	stop := make(chan struct{})
	withRunPoint(t, func(p *pipebench.Prepared, obs pipebench.Observers) (*pipebench.Result, error) {
		res, err := runValid(t, p, obs)
		close(stop) // SIGINT during the first point, just after it ended
		return res, err
	})
	var out, errb bytes.Buffer
	code := command(strings.Fields("sweep -b poll,epoll -n 10 -d 200ms -i 50ms"), &out, &errb, stop)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "not run:\n  epoll at 10 pipes, -l 1: interrupted before it ran") {
		t.Errorf("the partial table must list what was not run:\n%s", out.String())
	}
	if !strings.Contains(errb.String(), "sweep: interrupted after 1 of 2 points") {
		t.Errorf("stderr:\n%s", errb.String())
	}
}

// TestSweepWriters: a sweep over writers, each with its own eventfd
// (stress-epoll's table), runs a point per writer count, and its table has
// a writers column, a row per count, in events per millisecond, with the
// kernel in the header.
func TestSweepWriters(t *testing.T) {
	code, stdout, stderr := invoke(t, "sweep", "-b", "epoll", "-fd", "eventfd", "-n", "1", "-pipes-per", "writer", "-writers", "1,2,3",
		"-l", "0", "-writer", "thread", "-unit", "ms", "-d", "200ms", "-i", "100ms")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	head, _, _ := strings.Cut(stdout, "\npipes")
	if !strings.HasPrefix(head, "median evts/ms,") || !strings.Contains(head, ", Linux ") {
		t.Errorf("header %q: want events per ms and the kernel", head)
	}
	lines := tableLines(stdout)
	if f := strings.Fields(lines[0]); strings.Join(f, " ") != "pipes writers epoll" {
		t.Errorf("columns %q, want pipes writers epoll", lines[0])
	}
	for i, want := range []string{"1 1", "2 2", "3 3"} {
		f := strings.Fields(lines[1+i])
		if len(f) != 3 || f[0]+" "+f[1] != want {
			t.Errorf("row %d %q: want pipes and writers %s and a figure", i, lines[1+i], want)
		}
	}
}

// TestSweepRefine: the crossing of two curves is found under the table,
// -refine adds points inside its bracket, each run once a round, until
// its ends are within the factor; the table has their rows, the plot
// marks the crossing and the record keeps both. The runs are made up:
// poll at 1e6/n evts/sec, epoll at 1e6/(5 sqrt(n)), so that they cross
// at 25 pipes.
func TestSweepRefine(t *testing.T) {
	withRunPoint(t, func(p *pipebench.Prepared, _ pipebench.Observers) (*pipebench.Result, error) {
		cfg := p.Config()
		v := 1e6 / (5 * math.Sqrt(float64(cfg.Pipes)))
		if cfg.Backend.Name == "poll" {
			v = 1e6 / float64(cfg.Pipes)
		}
		res := &pipebench.Result{Setup: pipebench.Setup{Config: cfg}}
		for i := range 4 {
			res.Intervals = append(res.Intervals, pipebench.Interval{Index: i + 1, Seconds: 0.05, EventsPerSec: v, Counts: pipebench.Counts{Events: uint64(v / 20), Tokens: uint64(v / 20)}})
			res.Totals.Events += uint64(v / 20)
		}
		res.Tokens = pipebench.Tokens{Sent: res.Totals.Events, Received: res.Totals.Events}
		return res, nil
	})
	svg := filepath.Join(t.TempDir(), "cross.svg")
	code, stdout, stderr := invoke(t, strings.Fields("sweep -b poll,epoll -n 1,100 -d 200ms -i 50ms -count 2 -refine 1.25 -plot "+svg)...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// 100 -> 10; [10,100] -> 32; [10,32] -> 18; [18,32] -> 24; [24,32]
	// -> 28: ten points added to the grid's four, each run twice.
	var rows []string
	for _, l := range tableLines(stdout) {
		if f := strings.Fields(l); len(f) == 4 && f[3] != "epoll/poll" {
			rows = append(rows, f[0])
		}
	}
	if got := strings.Join(rows, " "); got != "1 10 18 24 28 32 100" {
		t.Errorf("rows %q, want the grid's and the added pipes:\n%s", got, stdout)
	}
	for _, want := range []string{
		"\n\ncrossings (on log pipes; 95% intervals from 2 paired rounds):\n" +
			"  epoll overtakes poll between 24 and 28 pipes, at about 25 (25-25)\n" +
			"  -refine 1.25 added 10 points (each run 2 times)\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "sweep 28/28 ") {
		t.Errorf("progress does not count the added runs:\n%s", stderr)
	}
	b, err := os.ReadFile(svg)
	if err != nil || !bytes.Contains(b, []byte("epoll &gt; poll at 25")) {
		t.Errorf("the plot does not mark the crossing (%v)", err)
	}

	code, stdout, stderr = invoke(t, strings.Fields("sweep -b poll,epoll -n 1,100 -d 200ms -i 50ms -refine 1.25 -format json")...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Flags  map[string]string
		Refine struct {
			Factor float64
			Added  []sweep.Key
		}
		Crossings sweep.Crossings
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Flags["refine"] != "1.25" || doc.Refine.Factor != 1.25 || len(doc.Refine.Added) != 10 || len(doc.Crossings.Pairs) != 1 {
		t.Fatalf("record: flags %v, refine %+v, crossings %+v", doc.Flags, doc.Refine, doc.Crossings)
	}
	c := doc.Crossings.Pairs[0].Crossings[0]
	if c.Over.Backend != "epoll" || c.From != 24 || c.To != 28 || math.Abs(c.At-25) > 1e-6 || c.Interval {
		t.Errorf("crossing %+v: want epoll over poll at 25, between 24 and 28, without an interval (one run a point)", c)
	}
}

// tableLines are the lines of a sweep's first table, its head ("pipes
// ...") first, up to the blank line after it.
func tableLines(stdout string) []string {
	_, table, _ := strings.Cut(stdout, "\npipes")
	table, _, _ = strings.Cut("pipes"+table, "\n\n")
	return strings.Split(strings.TrimSpace(table), "\n")
}
