package pipebench_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/poll"
	"github.com/pipebench/pipebench/stats"
)

// cloneResult copies res deep enough that a case can break one of its
// counts without touching the others' (histograms are replaced, never
// changed in place).
func cloneResult(res *pipebench.Result) *pipebench.Result {
	c := *res
	c.Intervals = slices.Clone(res.Intervals)
	for i := range c.Intervals {
		c.Intervals[i].Readers = slices.Clone(res.Intervals[i].Readers)
	}
	c.Readers = slices.Clone(res.Readers)
	c.Writers = slices.Clone(res.Writers)
	return &c
}

// addEverywhere adds d to the tail, the totals and the first reader's row,
// so that only the invariants that relate these counts to something else
// can break.
func addEverywhere(r *pipebench.Result, d pipebench.Counts) {
	r.Tail = r.Tail.Add(d)
	r.Totals = r.Totals.Add(d)
	r.Readers[0].Totals = r.Readers[0].Totals.Add(d)
}

// histOf is a histogram of n values v.
func histOf(n, v uint64) stats.Hist {
	h := stats.NewHist(100)
	for range n {
		h.Record(v)
	}
	return h
}

// TestCheckValid: a real run's result (two readers, two writer threads)
// holds every invariant, and breaking any one of them, and only it, makes
// CheckValid name it; a lost token is a *TokenLossError.
func TestCheckValid(t *testing.T) {
	cfg := pipebench.Config{
		Workload:  pipebench.Workload{Pipes: 20, InFlight: 6, RouteSeed: 5},
		Readiness: pipebench.Readiness{Backend: &poll.Factory},
		Threads:   pipebench.Threads{Writer: pipebench.WriterThread, Readers: 2, Writers: 2},
		Window:    pipebench.Window{Duration: 300 * time.Millisecond, Interval: 100 * time.Millisecond},
	}
	res, err := pipebench.Run(cfg, pipebench.Observers{})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.CheckValid(); err != nil {
		t.Fatalf("a run's own result: %v", err)
	}
	if len(res.Intervals) < 2 || len(res.Readers) != 2 || len(res.Writers) != 2 || res.Totals.Calls == 0 {
		t.Fatalf("the run has too little to break: %d intervals, %d readers, %d writers, %d calls",
			len(res.Intervals), len(res.Readers), len(res.Writers), res.Totals.Calls)
	}
	cases := []struct {
		name  string
		spoil func(r *pipebench.Result)
		want  string // in the error; "" for a *TokenLossError
	}{
		{"a token lost", func(r *pipebench.Result) { r.Tokens.Drained--; r.Tokens.Lost++ }, ""},
		{"a writer's token lost", func(r *pipebench.Result) { r.Writers[1].Drained--; r.Writers[1].Lost++ }, ""},
		{"lost miscounted", func(r *pipebench.Result) { r.Tokens.Lost = 3 }, "tokens lost 3, but sent"},
		{"a writer's lost miscounted", func(r *pipebench.Result) { r.Writers[0].Lost = 2 }, "writer 0: tokens lost 2, but sent"},
		{"received not the totals' tokens", func(r *pipebench.Result) { r.Tokens.Received++; r.Tokens.Lost-- }, "tokens received"},
		{"sent unknown yet counted", func(r *pipebench.Result) { r.Tokens.SentUnknown = true }, "sent unknown, yet sent"},
		{"writers' tokens not adding up", func(r *pipebench.Result) { r.Writers[0].Sent++; r.Writers[0].Lost++ }, "writers sent"},
		{"writers' writes not adding up", func(r *pipebench.Result) { r.WriterWrites++ }, "writers made"},
		{"writers' usage not adding up", func(r *pipebench.Result) { r.WriterThread.Voluntary++ }, "writers' usage"},
		{"intervals not adding up to the totals", func(r *pipebench.Result) { r.Tail.Reads++ }, "intervals and tail add up"},
		{"an interval misnumbered", func(r *pipebench.Result) { r.Intervals[1].Index = 5 }, "interval 2 is numbered 5"},
		{"an interval of no time", func(r *pipebench.Result) { r.Intervals[0].Seconds = 0 }, "interval 1 lasted 0 s"},
		{"an interval with more empty calls than calls", func(r *pipebench.Result) {
			r.Intervals[0].EmptyCalls = r.Intervals[0].Calls + 1
		}, "empty calls of"},
		{"an interval's rate off its counts", func(r *pipebench.Result) { r.Intervals[1].EventsPerSec++ }, "interval 2: evts/sec"},
		{"an interval's samples per call off", func(r *pipebench.Result) { r.Intervals[0].SamplesPerCall *= 2 }, "interval 1: samples per call"},
		{"intervals longer than the window", func(r *pipebench.Result) {
			r.Elapsed = time.Duration(r.Intervals[0].Seconds * float64(time.Second)) // as long as one of several
		}, "longer than the"},
		{"more events than reads", func(r *pipebench.Result) {
			addEverywhere(r, pipebench.Counts{Spurious: r.Totals.Reads})
		}, "spurious reports, but"},
		{"fewer tokens than events", func(r *pipebench.Result) {
			n := r.Totals.Tokens
			addEverywhere(r, pipebench.Counts{Events: n, Reads: n})
		}, "fewer than one each"},
		{"per-reader counts not adding up", func(r *pipebench.Result) { r.Readers[0].Totals.Events++ }, "readers' counts add up"},
		{"per-reader events of an interval not adding up", func(r *pipebench.Result) { r.Intervals[0].Readers[1]++ }, "readers' events add up"},
		{"per-reader usage not adding up", func(r *pipebench.Result) { r.ReaderThread.Involuntary++ }, "readers' usage"},
		{"reader rows not covering the pipes", func(r *pipebench.Result) { r.Readers[1].First++ }, "reader 1 watches pipes"},
		{"a histogram holding fewer calls than the counts", func(r *pipebench.Result) {
			r.PerCall = histOf(r.Totals.Calls-1, 1)
		}, "ready/call histogram holds"},
		{"a latency histogram holding fewer tokens than received", func(r *pipebench.Result) {
			r.Latency = histOf(r.Totals.Tokens-1, 1)
		}, "latency histogram holds"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := cloneResult(res)
			c.spoil(r)
			err := r.CheckValid()
			var loss *pipebench.TokenLossError
			switch {
			case err == nil:
				t.Fatal("CheckValid accepts it")
			case c.want == "" && !errors.As(err, &loss):
				t.Fatalf("got %v, want a *TokenLossError", err)
			case c.want != "" && (errors.As(err, &loss) || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("got %v, want an invalid result naming %q", err, c.want)
			}
			if err := res.CheckValid(); err != nil {
				t.Fatalf("breaking a copy broke the original: %v", err)
			}
		})
	}
}
