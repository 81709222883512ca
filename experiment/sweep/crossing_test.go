package sweep

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/pipebench/pipebench/pipebench"
)

// curvesResult is a sweep of rounds rounds whose point (b, n, l) in round
// r measured rate(b, n, l) times drift[r-1].
func curvesResult(g Grid, rounds int, drift []float64, rate func(b string, n, l int) float64) *Result {
	r := &Result{Grid: g, Rounds: rounds}
	for round := 1; round <= rounds; round++ {
		for _, k := range g.Keys() {
			p := Point{Key: k, EventsPerSec: rate(k.Backend, k.Pipes, k.InFlight) * drift[round-1]}
			if rounds > 1 {
				p.Round = round
			}
			r.Points = append(r.Points, p)
		}
	}
	return r
}

// pollEpoll: poll falls as 1/sqrt(pipes) from 1000 at one pipe, epoll is
// flat at 300 and 600 per token in flight: epoll overtakes poll where
// 1000/sqrt(n) = 300, at n = 100/9, about 11.1, at -l 1.
func pollEpoll(b string, n, l int) float64 {
	if b == "poll" {
		return 1000 / math.Sqrt(float64(n))
	}
	return 300 * float64(l)
}

func TestFindCrossings(t *testing.T) {
	g := Grid{Backends: []string{"poll", "epoll"}, Pipes: []int{1, 10, 100, 1000}, InFlight: []int{1}}
	// The machine's speed drifts fourfold between rounds: paired by
	// round, the ratio does not move; unpaired, it would hide the order.
	r := curvesResult(g, 3, []float64{1, 2, 4}, pollEpoll)
	cs := FindCrossings(r)
	if len(cs.Pairs) != 1 || cs.Level != 0.95 {
		t.Fatalf("pairs %+v at level %v: want poll and epoll at 0.95", cs.Pairs, cs.Level)
	}
	p := cs.Pairs[0]
	if p.A.Backend != "poll" || p.B.Backend != "epoll" || !reflect.DeepEqual(p.Pipes, []int{1, 10, 100, 1000}) || len(p.Crossings) != 1 {
		t.Fatalf("pair %+v", p)
	}
	c := p.Crossings[0]
	if c.Over.Backend != "epoll" || c.Under.Backend != "poll" || c.From != 10 || c.To != 100 {
		t.Errorf("crossing %+v: want epoll over poll between 10 and 100", c)
	}
	if math.Abs(c.At-100.0/9) > 1e-9 || !c.Resolved || !c.Interval || c.Lo > c.At || c.Hi < c.At || c.Before.N != 3 {
		t.Errorf("crossing %+v: want resolved at 100/9 from 3 pairs", c)
	}
	if c.Adjacent {
		t.Errorf("adjacent is -refine's: %+v", c)
	}

	// Tokens in flight: the backends at each -l, and each backend's -l
	// values; a skipped point leaves its pipes out of the pairs it is in.
	g.InFlight = []int{1, 4}
	r = curvesResult(g, 1, []float64{1}, pollEpoll)
	r.Points = slices.DeleteFunc(r.Points, func(p Point) bool { return p.Backend == "epoll" && p.InFlight == 4 && p.Pipes == 10 })
	cs = FindCrossings(r)
	var names []string
	for _, p := range cs.Pairs {
		names = append(names, p.A.String()+" / "+p.B.String())
	}
	want := []string{"poll -l 1 / epoll -l 1", "poll -l 4 / epoll -l 4", "poll -l 1 / poll -l 4", "epoll -l 1 / epoll -l 4"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("pairs %q, want %q", names, want)
	}
	if got := cs.Pairs[1].Pipes; !reflect.DeepEqual(got, []int{1, 100, 1000}) {
		t.Errorf("poll and epoll at -l 4 compared at %v: want the pipes both measured", got)
	}
	// epoll at -l 4 is 1200, above poll from the first pipe on; poll's
	// two -l are the same curve: a tie all along is no crossing.
	if n := len(cs.Pairs[1].Crossings) + len(cs.Pairs[2].Crossings); n != 0 {
		t.Errorf("crossings where none are: %+v", cs.Pairs[1:3])
	}
	if one := cs.Pairs[0].Crossings; len(one) != 1 || one[0].Interval {
		t.Errorf("one run a point: a crossing without an interval, got %+v", one)
	}
}

// refineRun measures every point at rate(backend, pipes, -l), in every
// interval.
func refineRun(rate func(b string, n, l int) float64) func(*pipebench.Prepared, pipebench.Observers) (*pipebench.Result, error) {
	return func(p *pipebench.Prepared, _ pipebench.Observers) (*pipebench.Result, error) {
		cfg := p.Config()
		v := rate(cfg.Backend.Name, cfg.Pipes, cfg.InFlight)
		return fakeResult(pipebench.WriterSelf, v, v, v), nil
	}
}

func refineJobs(t *testing.T, g Grid) []Job { return jobs(t, g, Key{}) }

// TestRefine: -refine adds both curves' points at the bracket's geometric
// middle, step by step, each run once a round, until the bracket is
// within the factor; the budget stops it early and says so.
func TestRefine(t *testing.T) {
	// poll falls as 1/n, epoll as 1/(5 sqrt(n)): they cross at 25.
	rate := func(b string, n, _ int) float64 {
		if b == "poll" {
			return 1e6 / float64(n)
		}
		return 1e6 / (5 * math.Sqrt(float64(n)))
	}
	g := Grid{Backends: []string{"poll", "epoll"}, Pipes: []int{1, 100}, InFlight: []int{1}}
	cases := []struct {
		name     string
		budget   int
		added    []int // the pipes of the points added, in order
		from, to float64
		spent    bool
	}{
		// 100 -> 10; [10,100] -> 32; [10,32] -> 18; [18,32] -> 24;
		// [24,32] -> 28; [24,28] is within 1.25.
		{"within the factor", 32, []int{10, 32, 18, 24, 28}, 24, 28, false},
		{"budget", 5, []int{10, 32}, 10, 32, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var total []int
			res, err := Run(g, refineJobs(t, g), Options{Warmup: 1, Rounds: 2, Run: refineRun(rate), Refine: 1.25, RefineBudget: c.budget, Job: testJob,
				OnProgress: func(e Progress) {
					if e.Kind == Finished {
						total = append(total, e.Total)
					}
				}})
			if err != nil {
				t.Fatal(err)
			}
			rf := res.Refine
			var added []int
			for i, k := range rf.Added {
				if i%2 == 0 {
					added = append(added, k.Pipes)
				}
				if k.Backend != g.Backends[i%2] || rf.Added[i-i%2].Pipes != k.Pipes {
					t.Errorf("added %v: want poll and epoll at each pipe count", rf.Added)
				}
			}
			if !reflect.DeepEqual(added, c.added) || rf.Spent != c.spent || rf.Factor != 1.25 || rf.Budget != c.budget {
				t.Errorf("refine %+v: want points at %v, budget spent %v", rf, c.added, c.spent)
			}
			if want := 2 * (4 + 2*len(c.added)); len(res.Points) != want || total[len(total)-1] != want {
				t.Errorf("%d runs (progress total %d), want %d: every point once a round", len(res.Points), total[len(total)-1], want)
			}
			cs := res.Crossings.Pairs[0].Crossings
			if len(cs) != 1 || cs[0].From != c.from || cs[0].To != c.to || cs[0].Adjacent || cs[0].At < c.from || cs[0].At > c.to {
				t.Errorf("crossings %+v: want one between %v and %v", cs, c.from, c.to)
			}
			keys := res.Keys()
			if len(keys) != 4+2*len(c.added) || !slices.IsSortedFunc(keys, func(a, b Key) int { return a.Pipes - b.Pipes }) {
				t.Errorf("keys %v: want the grid's and the added, by pipes", keys)
			}
		})
	}
}

// TestRefineAdjacent: a bracket of adjacent pipe counts (of multiples of
// the writers, with -pipes-per writer) cannot be narrowed: nothing is
// added, and the crossing says so.
func TestRefineAdjacent(t *testing.T) {
	rate := func(b string, n, _ int) float64 {
		if b == "poll" {
			return 1e6 / float64(n)
		}
		return 1e6 / 2.5
	}
	for _, g := range []Grid{
		{Backends: []string{"poll", "epoll"}, Pipes: []int{2, 3}, InFlight: []int{1}},
		{Backends: []string{"poll", "epoll"}, Pipes: []int{1}, InFlight: []int{1}, Writers: []int{2, 3}},
	} {
		res, err := Run(g, refineJobs(t, g), Options{Warmup: 1, Run: refineRun(rate), Refine: 1.1, RefineBudget: 8, Job: testJob})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Refine.Added) != 0 || res.Refine.Spent {
			t.Errorf("%+v: nothing could be added: %+v", g, res.Refine)
		}
		if g.Writers != nil {
			// Writers 2 and 3 are two settings, not a curve: no pair.
			if len(res.Crossings.Pairs) != 0 {
				t.Errorf("pairs %+v: each writers setting has one pipe count", res.Crossings.Pairs)
			}
			continue
		}
		if cs := res.Crossings.Pairs[0].Crossings; len(cs) != 1 || !cs[0].Adjacent {
			t.Errorf("crossings %+v: want one, adjacent", cs)
		}
	}
	per := Grid{PipesPer: "writer"}
	for _, c := range []struct {
		writers, from, to, want int
		ok                      bool
	}{
		{1, 1, 100, 10, true}, {1, 2, 3, 0, false}, {1, 2, 4, 3, true},
		{4, 4, 64, 16, true}, {4, 4, 8, 0, false}, {4, 4, 12, 8, true}, {3, 3, 300, 30, true},
	} {
		got, ok := per.between(Curve{Backend: "epoll", Writers: c.writers}, c.from, c.to)
		if got != c.want || ok != c.ok {
			t.Errorf("between %d and %d with %d writers: %d, %v; want %d, %v", c.from, c.to, c.writers, got, ok, c.want, c.ok)
		}
	}
}

// TestRefineStops: refinement does not start after an interrupt, and a
// point it cannot make a job for is skipped with the reason.
func TestRefineStops(t *testing.T) {
	g := Grid{Backends: []string{"poll", "epoll"}, Pipes: []int{1, 100}, InFlight: []int{1}}
	stop := make(chan struct{})
	calls := 0
	run := func(p *pipebench.Prepared, obs pipebench.Observers) (*pipebench.Result, error) {
		calls++
		if calls == 4 {
			close(stop)
		}
		return refineRun(pollEpoll)(p, obs)
	}
	res, err := Run(g, refineJobs(t, g), Options{Warmup: 1, Stop: stop, Run: run, Refine: 1.25, RefineBudget: 8, Job: testJob})
	if err != nil || !res.Interrupted || len(res.Refine.Added) != 0 || calls != 4 {
		t.Errorf("err %v, %d runs, refine %+v: want the grid's four and nothing added", err, calls, res.Refine)
	}
	if len(res.Crossings.Pairs) != 1 {
		t.Errorf("the crossings of what was measured: %+v", res.Crossings)
	}

	refused := func(k Key) (Job, error) { return Job{}, fmt.Errorf("-n %d is refused", k.Pipes) }
	res, err = Run(g, refineJobs(t, g), Options{Warmup: 1, Run: refineRun(pollEpoll), Refine: 1.25, RefineBudget: 8, Job: refused})
	if err != nil || len(res.Refine.Added) != 2 || len(res.Skipped) != 2 || res.Skipped[0].Reason != "-n 10 is refused" {
		t.Errorf("err %v, refine %+v, skipped %+v: want the two points at 10 skipped with the reason", err, res.Refine, res.Skipped)
	}
}
