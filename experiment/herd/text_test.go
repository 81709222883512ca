package herd_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pipebench/pipebench/experiment/fixture"
	"github.com/pipebench/pipebench/experiment/herd"
	"github.com/pipebench/pipebench/experiment/record"
	"github.com/pipebench/pipebench/internal/golden"
	"github.com/pipebench/pipebench/pipebench"
)

// handMade is a hand-made herd setting: k scales its counts, so that two
// settings (or two repetitions) differ by known factors.
func handMade(exclusive bool, k uint64) herd.Setting {
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

// TestTextGolden: the herd's table from known settings, one repetition:
// the output every herd printed before -count.
func TestTextGolden(t *testing.T) {
	res := &herd.Result{Settings: []herd.Setting{handMade(false, 1), handMade(true, 3)}}
	d := herd.NewDoc(record.Head{Environment: fixture.Machine}, herd.Config{Waiters: 4, Pipes: 8, InFlight: 1, Duration: 1500 * time.Millisecond}, 1, res)
	var b bytes.Buffer
	if err := d.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "herd.text", b.Bytes())
	fixture.CheckReadBack(t, d, &herd.Doc{})
}

// TestRoundsDoc: three rounds of known repetitions: the table shows each
// setting's medians (off's from k = 1, 2, 4: median 2; on's from 3, 6,
// 9: median 6), the ratios are of the medians, the JSON keeps all six
// repetitions and the medians with the runs they rest on.
func TestRoundsDoc(t *testing.T) {
	rep := func(ex bool, k uint64, round int) herd.Setting {
		s := handMade(ex, k)
		s.Setup.Round = round
		return s
	}
	res := &herd.Result{Rounds: 3, Settings: []herd.Setting{rep(false, 1, 1), rep(true, 9, 1), rep(true, 3, 2), rep(false, 4, 2), rep(false, 2, 3), rep(true, 6, 3)}}
	cfg := herd.Config{Waiters: 4, Pipes: 8, InFlight: 1, Duration: 1500 * time.Millisecond, Rounds: 3}
	d := herd.NewDoc(record.Head{Environment: fixture.Machine}, cfg, 1, res)
	if len(d.Medians) != 2 || d.Medians[0].Exclusive || !d.Medians[1].Exclusive || d.Medians[0].Runs != 3 || d.Medians[1].Runs != 3 {
		t.Fatalf("medians %+v: want off then on, 3 runs each", d.Medians)
	}
	// handMade's evts/sec median is 1050k with warm-up 1; tokens/sec 667k.
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
	var back herd.Doc
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Rounds != 3 || len(back.Settings) != 6 || len(back.Medians) != 2 || back.Settings[3].Setup.Round != 2 || back.Medians[1].Runs != 3 {
		t.Errorf("JSON: rounds %d, %d sides, %d medians: %s", back.Rounds, len(back.Settings), len(back.Medians), js.Bytes())
	}
	fixture.CheckReadBack(t, d, &herd.Doc{})
	var csvOut bytes.Buffer
	if err := record.Write(&csvOut, "csv", d); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&csvOut).ReadAll()
	if err != nil || len(rows) != 7 || rows[0][len(rows[0])-1] != "round" || rows[4][len(rows[4])-1] != "2" || rows[4][0] != "off" {
		t.Errorf("CSV: want a header ending in round and six rows, the fourth off in round 2: %q (%v)", rows, err)
	}
}

// TestRatioNotApplicable: a ratio over a figure of 0 (here, no wake-up
// with the flag on, and no waiter CPU) reads n/a in the text and is left
// out of the JSON, never printed as a ratio of 0.
func TestRatioNotApplicable(t *testing.T) {
	side := func(exclusive bool, voluntary int64) herd.Setting {
		return herd.Setting{
			Setup:       herd.Setup{Exclusive: exclusive},
			Totals:      herd.Counts{Tokens: 100, Returns: 100},
			WaiterUsage: pipebench.Usage{Voluntary: voluntary},
			Tokens:      pipebench.Tokens{Sent: 100, Received: 100},
		}
	}
	res := &herd.Result{Settings: []herd.Setting{side(false, 500), side(true, 0)}}
	d := herd.NewDoc(record.Head{}, herd.Config{Waiters: 4, Pipes: 1, InFlight: 1}, 0, res)
	if v, ok := d.Ratios["wakeups_per_token"]; ok {
		t.Errorf("wake-ups ratio %v over 0 wake-ups with the flag on: want it left out", v)
	}
	if v, ok := d.Ratios["returns_per_token"]; !ok || v != 1 {
		t.Errorf("returns ratio %v (present %v), want 1", v, ok)
	}
	var b strings.Builder
	if err := d.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`(?m)^wake-ups per token +5 +0 +n/a$`, `(?m)^returns per token +1 +1 +1$`} {
		if !regexp.MustCompile(want).MatchString(b.String()) {
			t.Errorf("text does not match %s:\n%s", want, b.String())
		}
	}
}
