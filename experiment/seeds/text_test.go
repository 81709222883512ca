package seeds_test

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"
	"time"

	"github.com/pipebench/pipebench/experiment/fixture"
	"github.com/pipebench/pipebench/experiment/record"
	"github.com/pipebench/pipebench/experiment/seeds"
	"github.com/pipebench/pipebench/internal/golden"
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

// TestTextGolden: the seeds' table from the synthetic rows, one run per
// step: where each figure comes from, the verdicts and the rule; the
// record reads back and writes the same text.
func TestTextGolden(t *testing.T) {
	res := &seeds.Result{Plan: seeds.Quick, Rows: seedRows(), Failures: []string{"003 churn epoll: writer died"}, Elapsed: 80 * time.Second}
	d := seeds.NewDoc(record.Head{Environment: fixture.Machine}, res)
	var b bytes.Buffer
	if err := d.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "seeds.text", b.Bytes())
	fixture.CheckReadBack(t, d, &seeds.Doc{})
}

// TestRoundsDoc: a reproduction of three rounds says so in the head line,
// and the CSV says how many runs each figure rests on, its figures to the
// last digit.
func TestRoundsDoc(t *testing.T) {
	rows := seedRows()
	rows[0].Runs, rows[1].Runs = 3, 2
	rows[0].HereFrom = "the median of 3 runs (1.4, 1.549, 1.6); the run nearest it: 63818 ÷ 41202"
	res := &seeds.Result{Plan: seeds.Quick, Rounds: 3, Rows: rows, Elapsed: 240 * time.Second}
	d := seeds.NewDoc(record.Head{Environment: fixture.Machine}, res)
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
	if got := strings.Join(recs[1][3:8], "|"); got != "1.506|343546.5 ÷ 228191|1.549|the median of 3 runs (1.4, 1.549, 1.6); the run nearest it: 63818 ÷ 41202|1.0285524568393094" {
		t.Errorf("CSV row 1: theirs, from, here, from, ratio %q", got)
	}
}
