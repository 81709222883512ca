package pipebench_test

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pipebench/pipebench/epoll"
	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/poll"
	fdselect "github.com/pipebench/pipebench/select"
)

func TestRunSources(t *testing.T) {
	for _, src := range []pipebench.Source{pipebench.SourcePipe, pipebench.SourceUnix, pipebench.SourceTCP, pipebench.SourceEventfd} {
		for _, w := range []pipebench.WriterMode{pipebench.WriterSelf, pipebench.WriterThread, pipebench.WriterProcess} {
			t.Run(fmt.Sprintf("%s/%s", src, w), func(t *testing.T) {
				before := openFDs(t)
				cfg := baseConfig()
				cfg.Source, cfg.Writer, cfg.Backend = src, w, &epoll.LevelFactory
				res, err := pipebench.Run(cfg, pipebench.Observers{})
				if err != nil {
					t.Fatal(err)
				}
				checkAccounting(t, res)
				if res.Setup.Source != src {
					t.Errorf("setup says %v", res.Setup.Source)
				}
				if after := openFDs(t); after != before {
					t.Errorf("%d descriptors before, %d after", before, after)
				}
			})
		}
	}
}

func TestRunChurn(t *testing.T) {
	for _, c := range []struct {
		f          *pipebench.Factory
		ctlPerEdit float64
	}{{&poll.Factory, 0}, {&fdselect.Factory, 0}, {&epoll.LevelFactory, 2}} {
		t.Run(c.f.Name, func(t *testing.T) {
			cfg := baseConfig()
			cfg.Backend, cfg.Churn, cfg.Writer = c.f, 3, pipebench.WriterSelf
			res, err := pipebench.Run(cfg, pipebench.Observers{})
			if err != nil {
				t.Fatal(err)
			}
			checkAccounting(t, res)
			tt := res.Totals
			if full := tt.Calls - tt.EmptyCalls; tt.Changes != 3*full {
				t.Errorf("%d changes in %d non-empty calls, want 3 per call", tt.Changes, full)
			}
			if got := float64(tt.Ctl) / float64(tt.Changes); got != c.ctlPerEdit {
				t.Errorf("%v ctl calls per change, want %v", got, c.ctlPerEdit)
			}
		})
	}
}

func TestRunDelay(t *testing.T) {
	cfg := baseConfig()
	cfg.Delay, cfg.InFlight, cfg.Writer = 2*time.Millisecond, 8, pipebench.WriterThread
	res, err := pipebench.Run(cfg, pipebench.Observers{})
	if err != nil {
		t.Fatal(err)
	}
	checkAccounting(t, res)
	// Every readiness call follows a sleep of at least the delay.
	if max := uint64(res.Elapsed / cfg.Delay); res.Totals.Calls > max+1 {
		t.Errorf("%d readiness calls in %v with a %v delay before each", res.Totals.Calls, res.Elapsed, cfg.Delay)
	}
	if full := res.Totals.Calls - res.Totals.EmptyCalls; float64(res.Totals.Events)/float64(full) < 2 {
		t.Errorf("a 2 ms delay with 8 tokens in flight batched only %v events per call", float64(res.Totals.Events)/float64(full))
	}
}

// allowedCPUs reads a thread's Cpus_allowed_list.
func allowedCPUs(t *testing.T, tid int) string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/status", tid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatal("no Cpus_allowed_list")
	return ""
}

func TestRunCPUPinning(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("needs two CPUs to pin reader and writer apart")
	}
	cfg := baseConfig()
	cfg.CPUs, cfg.Writer = []int{0, 1}, pipebench.WriterThread
	var reader, writer string
	var obs pipebench.Observers
	obs.OnSetup = func(s pipebench.Setup) {
		reader, writer = allowedCPUs(t, s.ReaderTID), allowedCPUs(t, s.WriterTID)
	}
	res, err := pipebench.Run(cfg, obs)
	if err != nil {
		t.Fatal(err)
	}
	checkAccounting(t, res)
	if reader != "0" || writer != "1" {
		t.Errorf("reader on CPUs %q, writer on %q; want 0 and 1", reader, writer)
	}
}

// minWaiter is a backend whose wait takes a minimum wait, for the checks
// that come before it opens.
var minWaiter = pipebench.Factory{Name: "minwaiter", Features: pipebench.MinWaits,
	Open: func(pipebench.Options) (pipebench.Mechanism, error) { return nil, errors.New("not for running") }}

func TestRunExperimentConfigErrors(t *testing.T) {
	cases := []struct {
		name string
		edit func(*pipebench.Config)
		want string
	}{
		{"churn too many", func(c *pipebench.Config) { c.Churn = c.Pipes + 1 }, "Churn"},
		{"churn bypass", func(c *pipebench.Config) { c.Backend, c.Churn = &pipebench.Bypass, 1 }, "Churn with Backend bypass"},
		{"delay bypass", func(c *pipebench.Config) { c.Backend, c.Delay = &pipebench.Bypass, time.Millisecond }, "Delay with Backend bypass"},
		{"eventfd latency", func(c *pipebench.Config) { c.Source, c.Latency = pipebench.SourceEventfd, true }, "Source eventfd with Latency"},
		{"eventfd bypass", func(c *pipebench.Config) { c.Backend, c.Source = &pipebench.Bypass, pipebench.SourceEventfd }, "Source eventfd with Backend bypass"},
		{"minwait negative", func(c *pipebench.Config) { c.MinWait = -time.Millisecond }, "MinWait -1ms: want 0 (none) or at least 1µs"},
		{"minwait below a microsecond", func(c *pipebench.Config) { c.MinWait = 500 }, "MinWait 500ns: want 0 (none) or at least 1µs"},
		{"minwait poll", func(c *pipebench.Config) { c.MinWait = time.Millisecond }, "MinWait with Backend poll: only io_uring's wait has a minimum wait"},
		{"minwait bypass", func(c *pipebench.Config) { c.Backend, c.MinWait = &pipebench.Bypass, time.Millisecond }, "makes no readiness call"},
		{"minwait past the timeout", func(c *pipebench.Config) {
			c.Backend, c.MinWait, c.WaitTimeout = &minWaiter, 20*time.Millisecond, 10*time.Millisecond
		}, "MinWait 20ms: want at most the readiness call's timeout, 10ms"},
		{"minwait past the default timeout", func(c *pipebench.Config) { c.Backend, c.MinWait = &minWaiter, 101*time.Millisecond }, "timeout, 100ms"},
		{"cpu out of range", func(c *pipebench.Config) { c.CPUs = []int{4096} }, "CPUs 4096"},
		{"three cpus", func(c *pipebench.Config) { c.CPUs = []int{0, 0, 0} }, "CPUs"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := baseConfig()
			c.edit(&cfg)
			_, err := pipebench.Run(cfg, pipebench.Observers{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error mentioning %q", err, c.want)
			}
		})
	}
}

// TestRunEdgeTriggeredOnePipe: with one pipe, every token an edge-triggered
// reader forwards lands in the pipe it is draining; the run must still end,
// count no false reports and lose nothing.
func TestRunEdgeTriggeredOnePipe(t *testing.T) {
	cfg := baseConfig()
	cfg.Pipes, cfg.InFlight, cfg.Writer, cfg.Backend = 1, 2048, pipebench.WriterSelf, &epoll.EdgeFactory
	res, err := runWithin(t, cfg, pipebench.Observers{}, 20*time.Second, "(edge-triggered, one pipe)")
	if err != nil {
		t.Fatal(err)
	}
	checkAccounting(t, res)
	if res.Totals.Spurious != 0 {
		t.Errorf("%d spurious reports from draining reads", res.Totals.Spurious)
	}
}

// TestRunRouteNextSpreads: the next route sends the tokens of one read to
// successive pipes, so that -l tokens stay -l tokens.
func TestRunRouteNextSpreads(t *testing.T) {
	cfg := baseConfig()
	cfg.Pipes, cfg.InFlight, cfg.Writer, cfg.Route = 50, 50, pipebench.WriterSelf, pipebench.RouteNext
	res, err := pipebench.Run(cfg, pipebench.Observers{})
	if err != nil {
		t.Fatal(err)
	}
	checkAccounting(t, res)
	if spc := float64(res.Totals.Events) / float64(res.Totals.Calls-res.Totals.EmptyCalls); spc < 5 {
		t.Errorf("50 tokens over 50 pipes on the next route gave %v samples per call: they travel as one", spc)
	}
}
