package seeds_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pipebench/pipebench/epoll"
	"github.com/pipebench/pipebench/experiment/herd"
	"github.com/pipebench/pipebench/experiment/record"
	"github.com/pipebench/pipebench/experiment/seeds"
	"github.com/pipebench/pipebench/experiment/sweep"
	"github.com/pipebench/pipebench/internal/child"
	"github.com/pipebench/pipebench/internal/envinfo"
	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/poll"
	"github.com/pipebench/pipebench/uring"
)

func TestMain(m *testing.M) {
	// The bypass and epoll with a writer process start this test binary
	// again as their writer process.
	child.Serve()
	os.Exit(m.Run())
}

// Tiny is a plan of seconds: every step at a small size.
var Tiny = seeds.Plan{
	Name: "tiny", Run: 200 * time.Millisecond, Interval: 100 * time.Millisecond, Warmup: 0, CPU: 0,
	Small: 200, Big: 1000, BigProcess: 200,
	SweepPipes:  []int{10, 100},
	HerdWaiters: 4, HerdMode: herd.Threads, HerdPipes: 2, HerdInFlight: 2,
	DelayPipes: 50, Delay: 200 * time.Microsecond, MinWait: 200 * time.Microsecond, LoadShare: 0.5,
	ChurnPipes: 10, Churn: 5,
	LatencyPipes: []int{15, 85, 200},
	Timeouts:     []time.Duration{100 * time.Microsecond}, TimeoutSamples: 10,
}

var backends = map[string]*pipebench.Factory{"poll": &poll.Factory, "epoll": &epoll.LevelFactory, "epoll-et": &epoll.EdgeFactory, "uring": &uring.Factory}

// TestRunTiny runs every step at tiny sizes and checks every row: a
// claim, a verdict with why, the command, a figure here (the profile row
// may instead say why it has none: profileMissing), the seed's figure or why there
// is none, a ratio exactly when both figures are compared; and the
// progress display heard every step start and finish, in order.
func TestRunTiny(t *testing.T) {
	var started, finished int
	lastDone := 0
	opt := seeds.Options{Backends: backends, OnProgress: func(e sweep.Progress) {
		if e.Name == "" || e.Total != seeds.Steps(Tiny) || e.Done < lastDone {
			t.Errorf("progress %+v after %d done", e, lastDone)
		}
		lastDone = e.Done
		switch e.Kind {
		case sweep.Started:
			started++
		case sweep.Finished:
			finished++
		}
	}}
	res, err := seeds.Run(Tiny, opt)
	if err != nil {
		t.Fatalf("%v (failures %q)", err, res.Failures)
	}
	if started != seeds.Steps(Tiny) || finished != started || lastDone != seeds.Steps(Tiny) {
		t.Errorf("%d steps started, %d finished, %d done; want %d", started, finished, lastDone, seeds.Steps(Tiny))
	}
	if len(res.Rows) < 20 {
		t.Fatalf("%d rows", len(res.Rows))
	}
	bySeed := map[string]int{}
	for i, r := range res.Rows {
		bySeed[r.Seed]++
		checkRow(t, i, r)
	}
	d := seeds.NewDoc(record.Head{Environment: envinfo.Read()}, res)
	var out [3]bytes.Buffer
	for i, format := range record.Formats {
		if err := record.Write(&out[i], format, d); err != nil {
			t.Fatal(err)
		}
	}
	var back seeds.Doc
	err = json.Unmarshal(out[2].Bytes(), &back)
	if a, b := mustJSON(t, back.Rows), mustJSON(t, d.Rows); err != nil || !bytes.Equal(a, b) {
		t.Errorf("the record's rows do not read back (%v):\n%s\nwant\n%s", err, a, b)
	}
	for _, s := range []string{"000", "001", "002", "003", "004"} {
		if bySeed[s] == 0 {
			t.Errorf("no row for seed %s", s)
		}
	}
}

// profileMissing says whether r is the profile row without a figure for
// one of the two reasons a tiny run may have: perf cannot record here, or a
// 200 ms run at 200 pipes took no sample in pipe_poll.
func profileMissing(r seeds.Row) bool {
	return strings.Contains(r.Claim, "pipe_poll") &&
		(strings.Contains(r.Why, "perf cannot record here") || strings.Contains(r.Why, "pipe_poll was not sampled"))
}

// noRatio002 says whether r is a row of seed 002 whose runs left no
// ratio, which a short run on a busy machine may: no CPU idle, or no
// involuntary context switch, in one of the two runs.
func noRatio002(r seeds.Row) bool {
	return r.Seed == "002" && r.Verdict == seeds.NotComparable && strings.HasSuffix(r.Why, ": no ratio")
}

func checkRow(t *testing.T, i int, r seeds.Row) {
	t.Helper()
	switch {
	case r.Claim == "" || r.Unit == "" || r.Command == "" || r.TheirsFrom == "":
		t.Errorf("row %d: incomplete: %+v", i, r)
	case r.Verdict != seeds.Holds && r.Verdict != seeds.DoesNotHold && r.Verdict != seeds.NotComparable:
		t.Errorf("row %d (%s): verdict %q", i, r.Claim, r.Verdict)
	case r.Why == "":
		t.Errorf("row %d (%s): a verdict without why", i, r.Claim)
	case r.Here == nil && !profileMissing(r) && !noRatio002(r):
		t.Errorf("row %d (%s): no figure here: %s", i, r.Claim, r.Why)
	case r.Here != nil && r.HereFrom == "":
		t.Errorf("row %d (%s): a figure here without its source", i, r.Claim)
	case (r.Ratio != nil) != (r.Here != nil && r.Theirs != nil && r.Verdict != seeds.NotComparable):
		t.Errorf("row %d (%s): ratio %v with here %v, theirs %v, %s", i, r.Claim, r.Ratio, r.Here, r.Theirs, r.Verdict)
	case r.Ratio != nil && *r.Ratio != *r.Here / *r.Theirs:
		t.Errorf("row %d (%s): ratio %v, here/theirs %v", i, r.Claim, *r.Ratio, *r.Here / *r.Theirs)
	}
}

// TestRunWithoutPerf: where perf cannot record, the profile row says so,
// not comparable, and nothing fails; a reproduction stopped before it
// starts leaves every row not comparable, saying it was interrupted.
func TestRunWithoutPerf(t *testing.T) {
	stop := make(chan struct{})
	close(stop)
	res, err := seeds.Run(Tiny, seeds.Options{Backends: backends, Stop: stop,
		PerfCheck: func() error { return errors.New("perf_event_paranoid is 4") }})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted {
		t.Error("a stopped reproduction is not marked interrupted")
	}
	for i, r := range res.Rows {
		if r.Verdict != seeds.NotComparable || r.Here != nil {
			t.Errorf("row %d (%s): %s %v after a stop before any step", i, r.Claim, r.Verdict, r.Here)
		}
		if strings.Contains(r.Claim, "pipe_poll") && !strings.Contains(r.Why, "perf cannot record here: perf_event_paranoid is 4") {
			t.Errorf("profile row: %s", r.Why)
		}
	}
}

// TestRunNeedsBackends: no poll or epoll factory is an error before any
// step.
func TestRunNeedsBackends(t *testing.T) {
	if _, err := seeds.Run(Tiny, seeds.Options{Backends: map[string]*pipebench.Factory{"poll": &poll.Factory}}); err == nil || !strings.Contains(err.Error(), "no epoll backend") {
		t.Errorf("got %v, want no epoll backend", err)
	}
}

// TestRunRounds: two rounds of a small plan run every step twice, the
// progress counting both rounds and naming them; every row measured in
// both rests on two runs, its figure here their median (for two, their
// mean) and its repetitions both rounds' figures.
func TestRunRounds(t *testing.T) {
	plan := Tiny
	plan.SweepPipes, plan.LatencyPipes = []int{10, 100}, []int{15, 85}
	rounds := map[int]int{}
	opt := seeds.Options{Backends: backends, Rounds: 2, OnProgress: func(e sweep.Progress) {
		if e.Total != 2*seeds.Steps(plan) || e.Rounds != 2 {
			t.Errorf("progress %+v: want a total of %d over 2 rounds", e, 2*seeds.Steps(plan))
		}
		if e.Kind == sweep.Finished {
			rounds[e.Round]++
		}
	}}
	res, err := seeds.Run(plan, opt)
	if err != nil {
		t.Fatalf("%v (failures %q)", err, res.Failures)
	}
	if res.Rounds != 2 || rounds[1] != seeds.Steps(plan) || rounds[2] != seeds.Steps(plan) {
		t.Errorf("rounds %d, steps finished per round %v; want 2, %d each", res.Rounds, rounds, seeds.Steps(plan))
	}
	for i, r := range res.Rows {
		checkRow(t, i, r)
		if len(r.Repetitions) != 2 {
			t.Errorf("row %d (%s): %d repetitions, want 2", i, r.Claim, len(r.Repetitions))
			continue
		}
		a, b := r.Repetitions[0].Here, r.Repetitions[1].Here
		if a == nil || b == nil {
			continue // the profile row may have no figure in a round
		}
		if r.Runs != 2 || r.Here == nil || *r.Here != (*a+*b)/2 || !strings.HasPrefix(r.HereFrom, "the median of 2 runs") {
			t.Errorf("row %d (%s): here %v from %d runs (%q), repetitions %v and %v", i, r.Claim, r.Here, r.Runs, r.HereFrom, *a, *b)
		}
	}
}

// TestRunPerfFailsToStart: a perf that passes the check but cannot start
// fails the profiled steps, which their row says, and the reproduction
// goes on: it is not taken for an interruption.
func TestRunPerfFailsToStart(t *testing.T) {
	bin := t.TempDir()
	fake := "#!/bin/sh\ncase \"$*\" in version) echo 'perf version 6.1.0'; exit 0;; esac\necho 'fake perf: cannot attach' >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(bin, "perf"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	res, err := seeds.Run(Tiny, seeds.Options{Backends: backends, PerfCheck: func() error { return nil }})
	if err == nil || !strings.Contains(err.Error(), "-kprofile") {
		t.Errorf("error %v: want the profiled step's failure", err)
	}
	if res.Interrupted {
		t.Error("perf's failure to start was taken for an interruption")
	}
	var herdMeasured bool
	for _, r := range res.Rows {
		switch {
		case strings.Contains(r.Claim, "pipe_poll"):
			if r.Verdict != seeds.NotComparable || !strings.Contains(r.Why, "fake perf: cannot attach") {
				t.Errorf("profile row: %s: %s", r.Verdict, r.Why)
			}
		case r.Seed == "000" && r.Here != nil:
			herdMeasured = true
		}
	}
	if !herdMeasured {
		t.Error("the steps after the failed profile were not measured")
	}
}

// mustJSON is v's JSON.
func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
