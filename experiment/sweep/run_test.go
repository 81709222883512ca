package sweep

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pipebench/pipebench/pipebench"
)

func TestGridKeys(t *testing.T) {
	g := Grid{Backends: []string{"poll", "epoll"}, Pipes: []int{100, 10}, InFlight: []int{4, 1}}
	want := []Key{
		{Backend: "poll", Pipes: 10, InFlight: 1}, {Backend: "epoll", Pipes: 10, InFlight: 1}, {Backend: "poll", Pipes: 10, InFlight: 4}, {Backend: "epoll", Pipes: 10, InFlight: 4},
		{Backend: "poll", Pipes: 100, InFlight: 1}, {Backend: "epoll", Pipes: 100, InFlight: 1}, {Backend: "poll", Pipes: 100, InFlight: 4}, {Backend: "epoll", Pipes: 100, InFlight: 4},
	}
	if got := g.Keys(); !reflect.DeepEqual(got, want) {
		t.Errorf("keys\n got %v\nwant %v", got, want)
	}
	if g.Pipes[0] != 100 {
		t.Errorf("Keys sorted the caller's list in place: %v", g.Pipes)
	}
}

// TestGridKeysThreads: writers, then readers, run inside pipes and tokens
// in flight, and PipesPer writer gives each writer its -n pipes
// (stress-epoll's rows).
func TestGridKeysThreads(t *testing.T) {
	g := Grid{Backends: []string{"epoll"}, Pipes: []int{1}, InFlight: []int{0}, Writers: []int{4, 2}, Readers: []int{1, 2}, PipesPer: "writer"}
	want := []Key{
		{Backend: "epoll", Pipes: 2, InFlight: 0, Writers: 2, Readers: 1}, {Backend: "epoll", Pipes: 2, InFlight: 0, Writers: 2, Readers: 2}, {Backend: "epoll", Pipes: 4, InFlight: 0, Writers: 4, Readers: 1}, {Backend: "epoll", Pipes: 4, InFlight: 0, Writers: 4, Readers: 2},
	}
	if got := g.Keys(); !reflect.DeepEqual(got, want) {
		t.Errorf("keys\n got %v\nwant %v", got, want)
	}
	if s := want[1].String(); s != "epoll at 2 pipes, -l 0, -writers 2, -readers 2" {
		t.Errorf("key reads %q", s)
	}
}

// TestGridKeysPerReader: PipesPer reader gives each reader its -n pipes
// (perf bench epoll wait's -f per thread).
func TestGridKeysPerReader(t *testing.T) {
	g := Grid{Backends: []string{"epoll"}, Pipes: []int{64}, InFlight: []int{0}, Readers: []int{2, 1}, PipesPer: "reader"}
	want := []Key{{Backend: "epoll", Pipes: 64, InFlight: 0, Readers: 1}, {Backend: "epoll", Pipes: 128, InFlight: 0, Readers: 2}}
	if got := g.Keys(); !reflect.DeepEqual(got, want) {
		t.Errorf("keys\n got %v\nwant %v", got, want)
	}
}

// fakeResult is a finished run whose intervals carry the given evts/sec.
func fakeResult(writer pipebench.WriterMode, rates ...float64) *pipebench.Result {
	res := &pipebench.Result{Setup: pipebench.Setup{Config: pipebench.Config{Threads: pipebench.Threads{Writer: writer}}}}
	for i, r := range rates {
		res.Intervals = append(res.Intervals, pipebench.Interval{Index: i + 1, Seconds: 1, EventsPerSec: r, TokensPerSec: r, Counts: pipebench.Counts{Events: uint64(r), Tokens: uint64(r)}})
		res.Totals.Events += uint64(r)
	}
	res.Totals.Calls = res.Totals.Events / 2
	res.Tokens = pipebench.Tokens{Sent: res.Totals.Events, Received: res.Totals.Events}
	return res
}

// testFactory names a backend that opens nothing: Prepare only checks a
// factory, and the tests' runs are made up (Options.Run).
func testFactory(name string) *pipebench.Factory {
	return &pipebench.Factory{Name: name, Open: func(pipebench.Options) (pipebench.Mechanism, error) {
		return nil, errors.New("a test's backend opens nothing")
	}}
}

// testJob is point k's job, prepared: k's pipes and tokens, a self
// writer, 3 s in intervals of 1 s.
func testJob(k Key) (Job, error) {
	return NewJob(k, pipebench.Config{
		Workload:  pipebench.Workload{Pipes: k.Pipes, InFlight: k.InFlight},
		Readiness: pipebench.Readiness{Backend: testFactory(k.Backend)},
		Threads:   pipebench.Threads{Writer: pipebench.WriterSelf},
		Window:    pipebench.Window{Duration: 3 * time.Second, Interval: time.Second},
	}, nil)
}

// jobs are the grid's jobs; the one of key skip (if any) is to be skipped,
// as a point over the descriptor limit is.
func jobs(t *testing.T, g Grid, skip Key) []Job {
	var js []Job
	for _, k := range g.Keys() {
		j, err := testJob(k)
		if err != nil {
			t.Fatal(err)
		}
		if k == skip {
			j.Prepared, j.Skip = nil, skipReason
		}
		js = append(js, j)
	}
	return js
}

// skipReason is why a test's point is skipped.
const skipReason = "-n 1000 needs 2003 descriptors: use -n 998 or less"

// TestNewJob: a point that fits is prepared; one over the descriptor limit
// is a job to skip, with the refusal written by the caller's names; any
// other refusal is an error.
func TestNewJob(t *testing.T) {
	k := Key{Backend: "poll", Pipes: 10, InFlight: 1}
	j, err := testJob(k)
	if err != nil || j.Prepared == nil || j.Skip != "" || j.Prepared.Config().Pipes != 10 {
		t.Fatalf("a point that fits: %+v, %v", j, err)
	}
	names := func(field, value string) string { return "-" + strings.ToLower(field) + " " + value }
	cfg := j.Config
	cfg.Pipes = 2000000 // over any machine's limit
	j, err = NewJob(k, cfg, names)
	if err != nil || j.Prepared != nil || !strings.HasPrefix(j.Skip, "-pipes 2000000 with -writer self needs ") {
		t.Errorf("a point over the limit: %+v, %v; want a job to skip saying why by the caller's names", j, err)
	}
	cfg.Pipes, cfg.Interval = 10, 4*time.Second
	var ce *pipebench.ConfigError
	if _, err := NewJob(k, cfg, names); !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), "-interval 4s is longer than -duration 3s") {
		t.Errorf("a point that cannot run: %v, want the ConfigError by the caller's names", err)
	}
}

func TestRunOutcomes(t *testing.T) {
	g := Grid{Backends: []string{"poll", "epoll"}, Pipes: []int{10, 100, 1000}, InFlight: []int{1}}
	boom := errors.New("stalled: no event for 2s")
	cases := []struct {
		name string
		// outcome decides each run by its pipes and call number.
		outcome func(cfg pipebench.Config, call int, stop chan struct{}) (*pipebench.Result, error)
		// skip is the point over the limit, if any.
		skip        Key
		wantPoints  int
		wantSkipped []Key
		wantNotRun  []Key
		wantErr     bool
		interrupted bool
	}{
		{
			name: "all measured",
			outcome: func(cfg pipebench.Config, _ int, _ chan struct{}) (*pipebench.Result, error) {
				return fakeResult(pipebench.WriterSelf, 1, 100, 200, 300), nil
			},
			wantPoints: 6,
		},
		{
			name: "limit skips and goes on",
			outcome: func(cfg pipebench.Config, _ int, _ chan struct{}) (*pipebench.Result, error) {
				if cfg.Pipes == 1000 && cfg.Backend.Name == "poll" {
					t.Error("a point to skip was run")
				}
				return fakeResult(pipebench.WriterSelf, 1, 100, 200, 300), nil
			},
			skip:        Key{Backend: "poll", Pipes: 1000, InFlight: 1},
			wantPoints:  5,
			wantSkipped: []Key{{Backend: "poll", Pipes: 1000, InFlight: 1}},
		},
		{
			name: "failure ends the sweep",
			outcome: func(cfg pipebench.Config, call int, _ chan struct{}) (*pipebench.Result, error) {
				if call == 2 {
					return fakeResult(pipebench.WriterSelf, 1), boom
				}
				return fakeResult(pipebench.WriterSelf, 1, 100, 200, 300), nil
			},
			wantPoints: 2,
			wantNotRun: []Key{{Backend: "epoll", Pipes: 100, InFlight: 1}, {Backend: "poll", Pipes: 1000, InFlight: 1}, {Backend: "epoll", Pipes: 1000, InFlight: 1}},
			wantErr:    true,
		},
		{
			name: "interrupt keeps what was done",
			outcome: func(cfg pipebench.Config, call int, stop chan struct{}) (*pipebench.Result, error) {
				res := fakeResult(pipebench.WriterSelf, 1, 100, 200, 300)
				if call == 3 {
					close(stop)
					res.Interrupted = true
				}
				return res, nil
			},
			wantPoints:  3,
			wantNotRun:  []Key{{Backend: "epoll", Pipes: 100, InFlight: 1}, {Backend: "poll", Pipes: 1000, InFlight: 1}, {Backend: "epoll", Pipes: 1000, InFlight: 1}},
			interrupted: true,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stop := make(chan struct{})
			calls := 0
			var events []Progress
			res, err := Run(g, jobs(t, g, c.skip), Options{
				Warmup: 1, Stop: stop,
				OnProgress: func(e Progress) { events = append(events, e) },
				Run: func(p *pipebench.Prepared, obs pipebench.Observers) (*pipebench.Result, error) {
					if obs.Stop == nil {
						t.Error("the run was not given the stop channel")
					}
					r, err := c.outcome(p.Config(), calls, stop)
					calls++
					return r, err
				},
			})
			if (err != nil) != c.wantErr {
				t.Fatalf("err = %v, want error %v", err, c.wantErr)
			}
			if c.wantErr && (!errors.Is(err, boom) || !strings.Contains(err.Error(), "poll at 100 pipes")) {
				t.Errorf("error %q does not name the point and wrap the cause", err)
			}
			if len(res.Points) != c.wantPoints {
				t.Errorf("%d points, want %d", len(res.Points), c.wantPoints)
			}
			if got := keysOf(res.Skipped); !reflect.DeepEqual(got, c.wantSkipped) {
				t.Errorf("skipped %v, want %v", got, c.wantSkipped)
			}
			for _, m := range res.Skipped {
				if m.Reason != skipReason {
					t.Errorf("skipped for %q, want the job's reason %q", m.Reason, skipReason)
				}
			}
			if got := keysOf(res.NotRun); !reflect.DeepEqual(got, c.wantNotRun) {
				t.Errorf("not run %v, want %v", got, c.wantNotRun)
			}
			if res.Interrupted != c.interrupted {
				t.Errorf("interrupted = %v", res.Interrupted)
			}
			if c.wantErr != (res.Failure != nil) {
				t.Errorf("failure = %+v", res.Failure)
			}
			finished := 0
			for _, e := range events {
				if e.Kind == Finished {
					finished++
					if e.Done != finished || e.Total != 6 {
						t.Errorf("finished event %d says %d/%d", finished, e.Done, e.Total)
					}
				}
			}
			if finished != len(res.Points)+len(res.Skipped) {
				t.Errorf("%d finished events for %d points and %d skipped", finished, len(res.Points), len(res.Skipped))
			}
		})
	}
}

func keysOf(ms []Missing) []Key {
	var ks []Key
	for _, m := range ms {
		ks = append(ks, m.Key)
	}
	return ks
}

func TestNewPointMedianAfterWarmup(t *testing.T) {
	// The warm-up interval (1) is left out: the median of 100, 300, 200, 400
	// is 250.
	p := NewPoint(Key{Backend: "epoll", Pipes: 10, InFlight: 1}, fakeResult(pipebench.WriterThread, 0, 100, 300, 200, 400), 1)
	if p.EventsPerSec != 250 || p.Intervals != 4 {
		t.Errorf("median %v over %d intervals, want 250 over 4", p.EventsPerSec, p.Intervals)
	}
	if p.Writer != "thread" || !p.SamplesApply || p.SamplesPerCall != 2 {
		t.Errorf("point %+v", p)
	}
}

func TestETA(t *testing.T) {
	s := time.Second
	cases := []struct {
		name string
		e    Progress
		want time.Duration
	}{
		{"nothing done: the guess", Progress{Kind: Started, Done: 0, Total: 5, Elapsed: 0}, 15 * s},
		{"mean of the points done", Progress{Kind: Finished, Done: 2, Total: 5, Elapsed: 8 * s}, 12 * s},
		{"less the running point", Progress{Kind: Tick, Done: 2, Total: 5, Elapsed: 9 * s, InPoint: s}, 11 * s},
		{"never negative", Progress{Kind: Tick, Done: 1, Total: 2, Elapsed: 20 * s, InPoint: 18 * s}, 0},
		{"all done", Progress{Kind: Finished, Done: 5, Total: 5, Elapsed: 20 * s}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := ETA(c.e, 3*s); got != c.want {
				t.Errorf("ETA = %v, want %v", got, c.want)
			}
		})
	}
}
