package report_test

import (
	"encoding/json"
	"github.com/pipebench/pipebench/experiment/record"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pipebench/pipebench/experiment/herd"
	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/stats/report"
)

// TestHerdRatioNotApplicable: a ratio over a figure of 0 (here, no
// wake-up with the flag on, and no waiter CPU) reads n/a in the text and is
// left out of the JSON, never printed as a ratio of 0.
func TestHerdRatioNotApplicable(t *testing.T) {
	side := func(exclusive bool, voluntary int64) herd.Setting {
		return herd.Setting{
			Setup:       herd.Setup{Exclusive: exclusive},
			Totals:      herd.Counts{Tokens: 100, Returns: 100},
			WaiterUsage: pipebench.Usage{Voluntary: voluntary},
			Tokens:      pipebench.Tokens{Sent: 100, Received: 100},
		}
	}
	res := &herd.Result{Settings: []herd.Setting{side(false, 500), side(true, 0)}}
	d := report.NewHerdDoc(record.Head{}, herd.Config{Waiters: 4, Pipes: 1, InFlight: 1}, 0, res)
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

// TestHerdRefigure: a herd record read back and refigured has the figures
// its raw counts give, even where the stored figures lack one (a record
// written before waiters_sys_ns was a figure).
func TestHerdRefigure(t *testing.T) {
	side := func(exclusive bool, sys time.Duration) herd.Setting {
		return herd.Setting{
			Setup:       herd.Setup{Exclusive: exclusive},
			Totals:      herd.Counts{Tokens: 100, Returns: 100},
			WaiterUsage: pipebench.Usage{System: sys, Voluntary: 300},
			Tokens:      pipebench.Tokens{Sent: 100, Received: 100},
		}
	}
	res := &herd.Result{Settings: []herd.Setting{side(false, 2*time.Second), side(true, time.Second)}}
	d := report.NewHerdDoc(record.Head{}, herd.Config{Waiters: 4, Pipes: 1, InFlight: 1}, 0, res)
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	old := strings.ReplaceAll(string(b), `"waiters_sys_ns":`, `"dropped":`)
	var back report.HerdDoc
	if err := json.Unmarshal([]byte(old), &back); err != nil {
		t.Fatal(err)
	}
	if back.Settings[0].Figures.WaiterSystem != 0 {
		t.Fatal("the field was not dropped")
	}
	back.Refigure()
	if got, want := back.Settings[0].Figures.WaiterSystem, d.Settings[0].Figures.WaiterSystem; got != want || got == 0 {
		t.Errorf("waiters' system CPU %v after refiguring, want %v", got, want)
	}
	if back.Ratios["waiters_sys_ns"] != d.Ratios["waiters_sys_ns"] {
		t.Errorf("ratios %v, want %v", back.Ratios, d.Ratios)
	}
}
