package report_test

import (
	"bytes"
	"github.com/pipebench/pipebench/experiment/record"
	"strings"
	"testing"
	"time"

	"github.com/pipebench/pipebench/experiment/seeds"
	"github.com/pipebench/pipebench/internal/envinfo"
	"github.com/pipebench/pipebench/stats/report"
	"github.com/pipebench/pipebench/stats/report/reporttest"
)

func f(x float64) *float64 { return &x }

// seedRows are synthetic rows of every kind: compared, without a seed
// figure, not comparable with both figures, and nothing measured.
func seedRows() []seeds.Row {
	return []seeds.Row{
		{Seed: "001", Claim: "batching pays at 1000 pipes", Unit: "evts/sec ratio", Theirs: f(1.506), TheirsFrom: "343546.5 ÷ 228191",
			Here: f(1.549), HereFrom: "63818 ÷ 41202", Ratio: f(1.549 / 1.506), Judgement: seeds.SameSide(1.506, 1.549), Command: "pipebench -n 1000 -l 0"},
		{Seed: "000", Claim: "one event wakes several waiters", Unit: "wake-ups per token, off ÷ on", TheirsFrom: "no figure",
			Here: f(130), HereFrom: "132.2 ÷ 1.017", Judgement: seeds.Expect(seeds.Above, 130), Command: "pipebench herd"},
		{Seed: "002", Claim: "min-wait: fewer involuntary switches", Unit: "cs/sec", Theirs: f(1.071), TheirsFrom: "325000 ÷ 303500",
			Here: f(0.0764), HereFrom: "the sleep against no sleep", Judgement: seeds.Incomparable("no min-wait here"), Command: "pipebench -delay 200us"},
		{Seed: "001", Claim: "pipe_poll's share grows", Unit: "share ratio", Theirs: f(3.589), TheirsFrom: "12.4647 ÷ 3.4728",
			Judgement: seeds.Incomparable("no figure here: perf cannot record here"), Command: "pipebench -kprofile k"},
	}
}

// TestSeedsFormats: the text table, the CSV and the JSON carry every row,
// figure for figure (the reporttest checks), and the text says where each
// figure comes from and the verdict rule.
func TestSeedsFormats(t *testing.T) {
	res := &seeds.Result{Plan: seeds.Quick, Rows: seedRows(), Failures: []string{"003 churn epoll: writer died"}, Elapsed: 80 * time.Second}
	if err := reporttest.CheckSeedRows(res.Rows); err != nil {
		t.Fatalf("synthetic rows: %v", err)
	}
	d := report.NewSeedsDoc(record.Head{Environment: envinfo.Environment{Kernel: "6.18", Cores: 2}}, res)
	var text, csvOut, jsonOut bytes.Buffer
	for _, o := range []struct {
		format string
		w      *bytes.Buffer
	}{{"text", &text}, {"csv", &csvOut}, {"json", &jsonOut}} {
		if err := record.Write(o.w, o.format, d); err != nil {
			t.Fatalf("%s: %v", o.format, err)
		}
	}
	if err := reporttest.CheckSeedsFormats(d, text.Bytes(), csvOut.Bytes(), jsonOut.Bytes()); err != nil {
		t.Error(err)
	}
	for _, want := range []string{"seed's: 343546.5 ÷ 228191", "here:   63818 ÷ 41202", "not comparable: no min-wait here",
		"failed: 003 churn epoll: writer died", "more than 5% away", "machine        Linux 6.18"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
}

// TestCheckSeedRowsCatches: the row checker finds a wrong ratio, a ratio
// on a row that is not comparable, and a verdict without why.
func TestCheckSeedRowsCatches(t *testing.T) {
	for name, mend := range map[string]func(r *seeds.Row){
		"wrong ratio":         func(r *seeds.Row) { r.Ratio = f(2) },
		"ratio not compared":  func(r *seeds.Row) { r.Judgement = seeds.Incomparable("x") },
		"no why":              func(r *seeds.Row) { r.Why = "" },
		"unknown verdict":     func(r *seeds.Row) { r.Verdict = "maybe" },
		"here without source": func(r *seeds.Row) { r.HereFrom = "" },
	} {
		rows := seedRows()
		mend(&rows[0])
		if err := reporttest.CheckSeedRows(rows); err == nil {
			t.Errorf("%s: not caught", name)
		}
	}
}
