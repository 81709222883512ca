package report_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"github.com/pipebench/pipebench/experiment/record"
	"testing"
	"time"

	"github.com/pipebench/pipebench/experiment/herd"
	"github.com/pipebench/pipebench/experiment/seeds"
	"github.com/pipebench/pipebench/experiment/timeout"
	"github.com/pipebench/pipebench/internal/envinfo"
	"github.com/pipebench/pipebench/internal/golden"
	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/stats/report"
)

// goldenEnv is a machine of fixed facts, so that the machine line is the
// same everywhere.
var goldenEnv = envinfo.Environment{Kernel: "6.18.0", CPUModel: "Test CPU", Cores: 2, GoVersion: "go1.26", GOMAXPROCS: 2,
	FDSoft: 20000, FDHard: 20000, ClockSource: "tsc"}

// herdSetting is a hand-made herd setting: k scales its counts, so that two
// settings (or two repetitions) differ by known factors.
func herdSetting(exclusive bool, k uint64) herd.Setting {
	tokens := 1000 * k
	return herd.Setting{
		Setup: herd.Setup{Exclusive: exclusive, Waiters: 4, Pipes: 8, InFlight: 1, GOMAXPROCS: 7, Took: 3 * time.Millisecond},
		Intervals: []herd.Interval{
			{Exclusive: exclusive, Index: 1, Seconds: 0.5, EventsPerSec: float64(900 * k)},
			{Exclusive: exclusive, Index: 2, Seconds: 0.5, EventsPerSec: float64(1000 * k)},
			{Exclusive: exclusive, Index: 3, Seconds: 0.5, EventsPerSec: float64(1100 * k)},
		},
		Elapsed: 1500 * time.Millisecond,
		Window:  herd.Counts{Tokens: tokens},
		Totals:  herd.Counts{Tokens: tokens, Returns: 2 * tokens / k, WastedReturns: tokens / k, WastedReads: tokens / (2 * k), Timeouts: 3},
		Waiters: []herd.Waiter{{Counts: herd.Counts{Tokens: tokens / 4}}, {Counts: herd.Counts{Tokens: tokens / 2}},
			{Counts: herd.Counts{Tokens: tokens / 8}}, {Counts: herd.Counts{Tokens: tokens / 8}}},
		WaiterUsage: pipebench.Usage{System: time.Duration(k) * time.Millisecond, User: time.Duration(k) * 100 * time.Microsecond, Voluntary: int64(4*tokens/k + 3)},
		Writer:      pipebench.Usage{System: 2 * time.Millisecond},
		Tokens:      pipebench.Tokens{Sent: tokens + 1, Received: tokens, Drained: 1},
	}
}

// TestHerdTextGolden: the herd's table from known settings, one
// repetition: the output every herd printed before -count.
func TestHerdTextGolden(t *testing.T) {
	res := &herd.Result{Settings: []herd.Setting{herdSetting(false, 1), herdSetting(true, 3)}}
	d := report.NewHerdDoc(record.Head{Environment: goldenEnv}, herd.Config{Waiters: 4, Pipes: 8, InFlight: 1, Duration: 1500 * time.Millisecond}, 1, res)
	var b bytes.Buffer
	if err := d.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "herd.text", b.Bytes())
}

// timeoutPoint is a hand-made point whose figures grow with k.
func timeoutPoint(m timeout.Mechanism, req time.Duration, k time.Duration) timeout.Point {
	return timeout.Point{Mechanism: m, Requested: req, Samples: 10, Min: k * time.Microsecond, P50: 2 * k * time.Microsecond,
		P99: 5 * k * time.Microsecond, Max: 9 * k * time.Microsecond, Mean: 3 * k * time.Microsecond}
}

// TestTimeoutTextGolden: the timeout table from known points, one
// repetition.
func TestTimeoutTextGolden(t *testing.T) {
	res := &timeout.Result{Samples: 10, TimerSlack: 50 * time.Microsecond, Elapsed: 2 * time.Second, Points: []timeout.Point{
		timeoutPoint(timeout.EpollWait, 50*time.Microsecond, 100), timeoutPoint(timeout.EpollWait, time.Millisecond, 10),
		timeoutPoint(timeout.Timerfd, 50*time.Microsecond, 1), timeoutPoint(timeout.Timerfd, time.Millisecond, 2),
	}}
	res.Points[1].Interrupted = 2
	var b bytes.Buffer
	if err := report.NewTimeoutDoc(record.Head{Environment: goldenEnv}, res).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "timeout.text", b.Bytes())
}

// TestSeedsTextGolden: the seeds' table from the synthetic rows, one run
// per step.
func TestSeedsTextGolden(t *testing.T) {
	res := &seeds.Result{Plan: seeds.Quick, Rows: seedRows(), Failures: []string{"003 churn epoll: writer died"}, Elapsed: 80 * time.Second}
	var b bytes.Buffer
	if err := report.NewSeedsDoc(record.Head{Environment: goldenEnv}, res).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "seeds.text", b.Bytes())
}

// TestHerdRounds: three rounds of known repetitions: the table shows each
// setting's medians (off's from k = 1, 2, 4: median 2; on's from 3, 6,
// 9: median 6), the ratios are of the medians, the JSON keeps all six
// repetitions and the medians with the runs they rest on.
func TestHerdRounds(t *testing.T) {
	rep := func(ex bool, k uint64, round int) herd.Setting {
		s := herdSetting(ex, k)
		s.Setup.Round = round
		return s
	}
	res := &herd.Result{Rounds: 3, Settings: []herd.Setting{rep(false, 1, 1), rep(true, 9, 1), rep(true, 3, 2), rep(false, 4, 2), rep(false, 2, 3), rep(true, 6, 3)}}
	cfg := herd.Config{Waiters: 4, Pipes: 8, InFlight: 1, Duration: 1500 * time.Millisecond, Rounds: 3}
	d := report.NewHerdDoc(record.Head{Environment: goldenEnv}, cfg, 1, res)
	if len(d.Medians) != 2 || d.Medians[0].Exclusive || !d.Medians[1].Exclusive || d.Medians[0].Runs != 3 || d.Medians[1].Runs != 3 {
		t.Fatalf("medians %+v: want off then on, 3 runs each", d.Medians)
	}
	// herdSetting's evts/sec median is 1050k with warm-up 1; tokens/sec 667k.
	if got := d.Medians[0].Figures.EventsPerSec.Median; got != 2100 {
		t.Errorf("off's median evts/sec %v, want 2100", got)
	}
	if got := d.Medians[1].Figures.TokensPerSec; got != 4000 {
		t.Errorf("on's median tokens/sec %v, want 4000", got)
	}
	if got := d.Ratios["evts_per_sec_median"]; got != 2100.0/6300 {
		t.Errorf("evts/sec ratio %v, want the medians' 2100/6300", got)
	}
	var b bytes.Buffer
	if err := d.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "herd-rounds.text", b.Bytes())
	var js bytes.Buffer
	if err := record.Write(&js, "json", d); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Rounds int `json:"rounds"`
		Sides  []struct {
			Setup   struct{ Round int } `json:"setup"`
			Figures map[string]any      `json:"figures"`
		} `json:"sides"`
		Medians []struct {
			Exclusive bool           `json:"exclusive"`
			Runs      int            `json:"runs"`
			Figures   map[string]any `json:"figures"`
		} `json:"medians"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Rounds != 3 || len(back.Sides) != 6 || len(back.Medians) != 2 || back.Sides[3].Setup.Round != 2 || back.Medians[1].Runs != 3 {
		t.Errorf("JSON: rounds %d, %d sides, %d medians: %s", back.Rounds, len(back.Sides), len(back.Medians), js.Bytes())
	}
	var csvOut bytes.Buffer
	if err := record.Write(&csvOut, "csv", d); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&csvOut).ReadAll()
	if err != nil || len(rows) != 7 || rows[0][len(rows[0])-1] != "round" || rows[4][len(rows[4])-1] != "2" || rows[4][0] != "off" {
		t.Errorf("CSV: want a header ending in round and six rows, the fourth off in round 2: %q (%v)", rows, err)
	}
}

// TestTimeoutRounds: two repetitions of known points: the table shows
// their medians and says so; the CSV has a row per repetition and point.
func TestTimeoutRounds(t *testing.T) {
	reps := []timeout.Repetition{
		{Round: 1, Points: []timeout.Point{timeoutPoint(timeout.EpollWait, time.Millisecond, 10), timeoutPoint(timeout.Timerfd, time.Millisecond, 1)}},
		{Round: 2, Points: []timeout.Point{timeoutPoint(timeout.EpollWait, time.Millisecond, 30), timeoutPoint(timeout.Timerfd, time.Millisecond, 3)}},
	}
	res := &timeout.Result{Samples: 10, TimerSlack: 50 * time.Microsecond, Elapsed: 2 * time.Second, Rounds: 2, Repetitions: reps,
		Points: timeout.MedianPoints(reps)}
	d := report.NewTimeoutDoc(record.Head{Environment: goldenEnv}, res)
	var b bytes.Buffer
	if err := d.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "timeout-rounds.text", b.Bytes())
	var c bytes.Buffer
	if err := d.WriteCSV(&c); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&c).ReadAll()
	if err != nil || len(rows) != 5 || rows[0][10] != "round" || rows[3][0] != "epoll_wait" || rows[3][5] != "60000" || rows[3][10] != "2" {
		t.Errorf("CSV: want a header ending in round, four rows, the third epoll_wait in round 2 with p50 60µs: %q (%v)", rows, err)
	}
}

// TestSeedsRounds: a reproduction of three rounds says so in the head
// line, and the CSV says how many runs each figure rests on.
func TestSeedsRounds(t *testing.T) {
	rows := seedRows()
	rows[0].Runs, rows[1].Runs = 3, 2
	rows[0].HereFrom = "the median of 3 runs (1.4, 1.549, 1.6); the run nearest it: 63818 ÷ 41202"
	res := &seeds.Result{Plan: seeds.Quick, Rounds: 3, Rows: rows, Elapsed: 240 * time.Second}
	d := report.NewSeedsDoc(record.Head{Environment: goldenEnv}, res)
	var text, c bytes.Buffer
	if err := d.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "seeds-rounds.text", text.Bytes())
	if err := d.WriteCSV(&c); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&c).ReadAll()
	if err != nil || len(recs) != 5 || recs[0][11] != "runs" || recs[1][11] != "3" || recs[2][11] != "2" || recs[4][11] != "0" {
		t.Errorf("CSV: want a runs column, 3, 2, ..., 0: %q (%v)", recs, err)
	}
}
