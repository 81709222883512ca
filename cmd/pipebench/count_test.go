package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/pipebench/pipebench/experiment/seeds"
	"github.com/pipebench/pipebench/experiment/sweep"
)

// TestCountBadInput: -count out of 1..1000 or not a number is one line
// naming -count and what it allows, exit 2, before any work, for every
// subcommand that repeats.
func TestCountBadInput(t *testing.T) {
	for _, sub := range []string{"herd", "timeout", "seeds"} {
		for _, v := range []string{"0", "1001", "x"} {
			code, stdout, stderr := invoke(t, sub, "-count", v)
			want := `pipebench: ` + sub + `: invalid value "` + v + `" for flag -count: want a whole number of rounds from 1 to 1000` + "\n"
			if code != exitUsage || stdout != "" || stderr != want {
				t.Errorf("%s -count %s: exit %d, stdout %q, stderr %q; want exit %d and %q", sub, v, code, stdout, stderr, exitUsage, want)
			}
		}
	}
}

// TestHerdCount: -count 2 measures both settings twice, on, off in the
// second round; the text says the rounds and shows the medians, the JSON
// keeps the four repetitions and the medians, and records -count.
func TestHerdCount(t *testing.T) {
	args := "herd -waiters 2 -n 4 -d 100ms -i 50ms -count 2"
	code, stdout, stderr := invoke(t, strings.Fields(args)...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		`(?m)^herd: 2 waiter threads, 4 pipes, 1 tokens in flight, 100ms a setting, 2 rounds\b`,
		`(?m)^round 1/2: exclusive off: 2 waiters ready in .*\n(round 1/2: exclusive off: .*\n)*round 1/2: exclusive on: 2 waiters ready`,
		`(?m)^round 2/2: exclusive on: 2 waiters ready in .*\n(round 2/2: exclusive on: .*\n)*round 2/2: exclusive off: 2 waiters ready`,
		`(?m)^round 2/2: exclusive off: [0-9]+ evts/sec `,
		`(?m)^EPOLLEXCLUSIVE +off +on +off/on$`,
		`(?m)^medians of 2 rounds \(off 2 runs, on 2 runs\)`,
		`(?m)^tokens off +sent [0-9]+  received [0-9]+  drained [0-9]+  lost 0\s+\(2 runs, `,
	} {
		if !regexp.MustCompile(want).MatchString(stdout) {
			t.Errorf("output does not match %s:\n%s", want, stdout)
		}
	}
	code, stdout, stderr = invoke(t, strings.Fields(args+" -format json")...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "round 2/2: exclusive off: 2 waiters ready") {
		t.Errorf("stderr does not say the round:\n%s", stderr)
	}
	var doc struct {
		Flags  map[string]string `json:"flags"`
		Rounds int               `json:"rounds"`
		Sides  []struct {
			Setup struct {
				Exclusive bool `json:"exclusive"`
				Round     int  `json:"round"`
			} `json:"setup"`
			Tokens struct{ Lost int64 } `json:"tokens"`
		} `json:"sides"`
		Medians []struct {
			Exclusive bool `json:"exclusive"`
			Runs      int  `json:"runs"`
		} `json:"medians"`
		Ratios map[string]float64 `json:"ratios_off_over_on"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout)
	}
	if doc.Flags["count"] != "2" || doc.Rounds != 2 || len(doc.Sides) != 4 || len(doc.Medians) != 2 || doc.Medians[1].Runs != 2 {
		t.Fatalf("JSON: count flag %q, rounds %d, %d sides, medians %+v; want 2, 2, 4, two of 2 runs", doc.Flags["count"], doc.Rounds, len(doc.Sides), doc.Medians)
	}
	for i, w := range []struct {
		ex    bool
		round int
	}{{false, 1}, {true, 1}, {true, 2}, {false, 2}} {
		if s := doc.Sides[i].Setup; s.Exclusive != w.ex || s.Round != w.round || doc.Sides[i].Tokens.Lost != 0 {
			t.Errorf("side %d: %+v, want exclusive %v in round %d", i, s, w.ex, w.round)
		}
	}
	if _, ok := doc.Ratios["tokens_per_sec"]; !ok {
		t.Errorf("no ratio of the medians: %v", doc.Ratios)
	}
}

// TestTimeoutCount: -count 2 measures every point twice, saying each
// round on stderr; the JSON keeps both repetitions of every point and
// records -count; the text says the table holds medians.
func TestTimeoutCount(t *testing.T) {
	base := "timeout -samples 2 -timeouts 50us,200us -mechanisms epoll_pwait2,epoll+timerfd -count 2 -format "
	code, stdout, stderr := invoke(t, strings.Fields(base+"json")...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if stderr != "timeout: round 1/2\ntimeout: round 2/2\n" {
		t.Errorf("stderr %q, want a line per round", stderr)
	}
	var doc struct {
		Flags       map[string]string       `json:"flags"`
		Rounds      int                     `json:"rounds"`
		Points      []struct{ Samples int } `json:"points"`
		Repetitions []struct {
			Round  int `json:"round"`
			Points []struct {
				Mechanism string `json:"mechanism"`
				Samples   int    `json:"samples"`
				P50       int64  `json:"p50_ns"`
			} `json:"points"`
		} `json:"repetitions"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout)
	}
	if doc.Flags["count"] != "2" || doc.Rounds != 2 || len(doc.Repetitions) != 2 || len(doc.Points) != 4 {
		t.Fatalf("JSON: count flag %q, rounds %d, %d repetitions, %d points", doc.Flags["count"], doc.Rounds, len(doc.Repetitions), len(doc.Points))
	}
	for i, rep := range doc.Repetitions {
		if rep.Round != i+1 || len(rep.Points) != 4 || rep.Points[2].Mechanism != "epoll+timerfd" || rep.Points[0].Samples != 2 {
			t.Errorf("repetition %d: %+v", i, rep)
		}
	}
	if doc.Points[0].Samples != 4 {
		t.Errorf("the medians rest on %d samples, want both repetitions' 4", doc.Points[0].Samples)
	}
	code, stdout, stderr = invoke(t, strings.Fields(base+"text")...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{`(?m)^timeout: 2 mechanisms x 2 timeouts, 2 samples each, 2 rounds$`, `(?m)^medians of 2 repetitions of 2 samples per point,`} {
		if !regexp.MustCompile(want).MatchString(stdout) {
			t.Errorf("output does not match %s:\n%s", want, stdout)
		}
	}
}

// TestSeedsCount: -count 3 asks the reproduction for three rounds, counts
// them in the progress, which names the round, and records -count.
func TestSeedsCount(t *testing.T) {
	old := runSeeds
	t.Cleanup(func() { runSeeds = old })
	var rounds int
	runSeeds = func(p seeds.Plan, opt seeds.Options) (*seeds.Result, error) {
		rounds = opt.Rounds
		opt.OnProgress(sweep.Progress{Kind: sweep.Finished, Name: "000 herd", Done: 1, Total: 3, Round: 2, Rounds: 3})
		x := 1.5
		return &seeds.Result{Plan: p, Rounds: opt.Rounds, Rows: []seeds.Row{{Seed: "001", Claim: "batching pays", Unit: "ratio", TheirsFrom: "seed",
			Here: &x, HereFrom: "the median of 3 runs", Judgement: seeds.Expect(seeds.Above, x), Command: "pipebench", Runs: 3}}}, nil
	}
	code, stdout, stderr := invoke(t, "seeds", "-quick", "-count", "3", "-format", "json")
	if code != exitOK || rounds != 3 {
		t.Fatalf("exit %d, %d rounds asked: %s", code, rounds, stderr)
	}
	if !strings.Contains(stderr, "steps x 3 rounds, the quick plan") || !strings.Contains(stderr, "round 2/3: 000 herd") {
		t.Errorf("stderr does not count the rounds:\n%s", stderr)
	}
	var doc struct {
		Flags  map[string]string    `json:"flags"`
		Rounds int                  `json:"rounds"`
		Rows   []struct{ Runs int } `json:"rows"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || doc.Flags["count"] != "3" || doc.Rounds != 3 || len(doc.Rows) != 1 || doc.Rows[0].Runs != 3 {
		t.Errorf("JSON (%v): count flag %q, rounds %d, rows %+v", err, doc.Flags["count"], doc.Rounds, doc.Rows)
	}
}
