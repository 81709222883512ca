package pipebench_test

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pipebench/pipebench/internal/fdlimit"
	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/poll"
)

func baseConfig() pipebench.Config {
	return pipebench.Config{
		Workload:  pipebench.Workload{Pipes: 50, InFlight: 4, RouteSeed: 7},
		Readiness: pipebench.Readiness{Backend: &poll.Factory},
		Window:    pipebench.Window{Duration: 400 * time.Millisecond, Interval: 100 * time.Millisecond},
	}
}

// checkAccounting asserts that a finished run's result holds its
// invariants (Result.CheckValid: tokens conserved, counts adding up) and
// that tokens moved.
func checkAccounting(t *testing.T, res *pipebench.Result) {
	t.Helper()
	if err := res.CheckValid(); err != nil {
		t.Fatal(err)
	}
	if tk := res.Tokens; tk.Received == 0 || res.Totals.Events == 0 {
		t.Fatalf("no token moved: %+v, totals %+v", tk, res.Totals)
	}
}

// checkFailedResult asserts that a failed run's result holds the
// invariants that still hold when a run fails: every one but conservation
// (CheckValid then returns a *TokenLossError, or nil).
func checkFailedResult(t *testing.T, res *pipebench.Result) {
	t.Helper()
	if res == nil {
		t.Fatal("a run that failed after measuring returned no result")
	}
	var loss *pipebench.TokenLossError
	if err := res.CheckValid(); err != nil && !errors.As(err, &loss) {
		t.Fatal(err)
	}
}

func openFDs(t *testing.T) int {
	t.Helper()
	n, err := fdlimit.OpenFDs()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestRunWriterModes(t *testing.T) {
	cases := []struct {
		writer   pipebench.WriterMode
		inFlight int
		route    pipebench.Route
	}{
		{pipebench.WriterSelf, 1, pipebench.RouteRandom},
		{pipebench.WriterSelf, 16, pipebench.RouteNext},
		{pipebench.WriterThread, 1, pipebench.RouteRandom},
		{pipebench.WriterThread, 16, pipebench.RouteNext},
		{pipebench.WriterThread, 0, pipebench.RouteRandom},
		{pipebench.WriterProcess, 1, pipebench.RouteRandom},
		{pipebench.WriterProcess, 16, pipebench.RouteRandom},
		{pipebench.WriterProcess, 0, pipebench.RouteNext},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/l=%d/%s", c.writer, c.inFlight, c.route), func(t *testing.T) {
			before := openFDs(t)
			cfg := baseConfig()
			cfg.Writer, cfg.InFlight, cfg.Route = c.writer, c.inFlight, c.route
			var setups, lines int
			var obs pipebench.Observers
			obs.OnSetup = func(pipebench.Setup) { setups++ }
			obs.OnInterval = func(pipebench.Interval) { lines++ }
			res, err := pipebench.Run(cfg, obs)
			if err != nil {
				t.Fatal(err)
			}
			checkAccounting(t, res)
			if res.Setup.Writer != c.writer {
				t.Errorf("writer %s, want %s", res.Setup.Writer, c.writer)
			}
			if setups != 1 || lines != 4 || len(res.Intervals) != 4 {
				t.Errorf("setup calls %d, interval calls %d, intervals %d; want 1, 4, 4", setups, lines, len(res.Intervals))
			}
			if c.inFlight > 0 && res.Tokens.Drained > uint64(c.inFlight) {
				t.Errorf("drained %d tokens, more than the %d in flight", res.Tokens.Drained, c.inFlight)
			}
			if c.writer == pipebench.WriterSelf && res.Tokens.Drained != uint64(c.inFlight) {
				t.Errorf("self mode keeps every token in flight: drained %d, want %d", res.Tokens.Drained, c.inFlight)
			}
			if c.writer != pipebench.WriterSelf && c.inFlight > 0 {
				// One credit word per non-empty readiness call, no more.
				if full := res.Totals.Calls - res.Totals.EmptyCalls; res.Totals.Writes > full {
					t.Errorf("reader wrote %d credit words in %d non-empty calls", res.Totals.Writes, full)
				}
			}
			for _, iv := range res.Intervals {
				// The reporter's timer never fires early: an interval's
				// counts are taken at or after its boundary.
				if iv.Late < 0 {
					t.Errorf("interval %d counted %v after its boundary", iv.Index, iv.Late)
				}
			}
			if res.PerCall.Count() != res.Totals.Calls {
				t.Errorf("%d ready-per-call samples for %d readiness calls", res.PerCall.Count(), res.Totals.Calls)
			}
			if c.inFlight == 1 {
				for _, iv := range res.Intervals {
					if iv.Events > 0 && iv.SamplesPerCall != 1 {
						t.Errorf("one token in flight gave %v samples per call", iv.SamplesPerCall)
					}
				}
			}
			if res.ReaderThread.CPU() <= 0 {
				t.Errorf("reader thread used no CPU: %+v", res.ReaderThread)
			}
			if c.writer == pipebench.WriterProcess && res.WriterProcess.CPU() <= 0 {
				t.Errorf("writer process reported no CPU: %+v", res.WriterProcess)
			}
			if after := openFDs(t); after != before {
				t.Errorf("%d descriptors open before the run, %d after", before, after)
			}
		})
	}
}

func TestRunBypass(t *testing.T) {
	cfg := baseConfig()
	cfg.Backend, cfg.InFlight = &pipebench.Bypass, 3
	res, err := pipebench.Run(cfg, pipebench.Observers{})
	if err != nil {
		t.Fatal(err)
	}
	checkAccounting(t, res)
	if !res.Setup.NoReadinessCalls || res.Totals.Calls != 0 {
		t.Errorf("bypass made %d readiness calls (NoReadinessCalls %v)", res.Totals.Calls, res.Setup.NoReadinessCalls)
	}
	if res.Tokens.Drained != 3 {
		t.Errorf("bypass drained %d tokens, want the 3 in flight", res.Tokens.Drained)
	}
	if res.Totals.Reads != res.Totals.Events {
		t.Errorf("bypass: %d reads for %d events", res.Totals.Reads, res.Totals.Events)
	}
}

func TestRunInterrupted(t *testing.T) {
	cfg := baseConfig()
	cfg.Duration = 0 // until interrupted
	cfg.Writer = pipebench.WriterThread
	stop := make(chan struct{})
	var obs pipebench.Observers
	obs.Stop = stop
	obs.OnInterval = func(iv pipebench.Interval) {
		if iv.Index == 2 {
			close(stop)
		}
	}
	res, err := runWithin(t, cfg, obs, 20*time.Second, "after Stop was closed")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || len(res.Intervals) != 2 {
		t.Errorf("interrupted %v after %d intervals; want true after 2", res.Interrupted, len(res.Intervals))
	}
	checkAccounting(t, res)
}

// runWithin runs cfg and fails the test, saying when, if the run has not
// ended within d: a hang is a failure, not a timeout of the test binary.
func runWithin(t *testing.T, cfg pipebench.Config, obs pipebench.Observers, d time.Duration, when string) (*pipebench.Result, error) {
	t.Helper()
	done := make(chan struct{})
	var res *pipebench.Result
	var err error
	go func() { res, err = pipebench.Run(cfg, obs); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("the run did not end within %v %s", d, when)
	}
	return res, err
}

// childPIDs lists this process's children.
func childPIDs(t *testing.T) []int {
	t.Helper()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, task := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + task.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if p, err := strconv.Atoi(f); err == nil {
				pids = append(pids, p)
			}
		}
	}
	return pids
}

func TestRunWriterProcessDies(t *testing.T) {
	before := openFDs(t)
	cfg := baseConfig()
	cfg.Writer = pipebench.WriterProcess
	cfg.Duration = 30 * time.Second
	var obs pipebench.Observers
	obs.OnInterval = func(iv pipebench.Interval) {
		if iv.Index == 2 {
			for _, pid := range childPIDs(t) {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
	start := time.Now()
	res, err := pipebench.Run(cfg, obs)
	if err == nil {
		t.Fatal("a run whose writer process was killed succeeded")
	}
	checkFailedResult(t, res)
	if !res.Tokens.SentUnknown || res.Tokens.Lost != 0 || res.Tokens.Sent != 0 {
		t.Errorf("a dead writer's count is unknown, not a number: %+v", res.Tokens)
	}
	if !strings.Contains(err.Error(), "writer process") || !strings.Contains(err.Error(), "killed") {
		t.Errorf("error does not name the writer process and its cause: %v", err)
	}
	if time.Since(start) > 20*time.Second {
		t.Errorf("took %v to notice the writer's death", time.Since(start))
	}
	if after := openFDs(t); after != before {
		t.Errorf("%d descriptors open before the run, %d after", before, after)
	}
}

// silent is a backend that never reports anything: it provokes a stall.
type silent struct{ pipebench.Mechanism }

func (silent) Wait(ready []int32, timeout time.Duration) (int, error) {
	time.Sleep(timeout)
	return 0, nil
}

func TestRunStall(t *testing.T) {
	f := poll.Factory
	f.Name = "silent"
	f.Open = func(o pipebench.Options) (pipebench.Mechanism, error) {
		b, err := poll.Factory.Open(o)
		return silent{b}, err
	}
	cfg := baseConfig()
	cfg.Backend = &f
	cfg.Duration = 30 * time.Second
	cfg.StallAfter = 300 * time.Millisecond
	cfg.WaitTimeout = 20 * time.Millisecond
	res, err := pipebench.Run(cfg, pipebench.Observers{})
	var stall *pipebench.StallError
	if !errors.As(err, &stall) {
		t.Fatalf("got %v, want a stall error", err)
	}
	if res == nil {
		t.Fatal("a stalled run returned no result")
	}
	if err := res.CheckValid(); err != nil || res.Tokens.Drained != res.Tokens.Sent {
		t.Fatalf("a stalled run must still account for its tokens: %v, %+v", err, res.Tokens)
	}
	if res.Totals.EmptyCalls == 0 || res.Totals.EmptyCalls != res.Totals.Calls {
		t.Errorf("silent backend: %d calls, %d empty", res.Totals.Calls, res.Totals.EmptyCalls)
	}
}

func TestRunLimitBeforeAnyPipe(t *testing.T) {
	before := openFDs(t)
	cfg := baseConfig()
	cfg.Pipes = 40000
	cfg.Writer = pipebench.WriterSelf
	start := time.Now()
	_, err := pipebench.Run(cfg, pipebench.Observers{})
	var le *pipebench.LimitError
	if !errors.As(err, &le) {
		t.Fatalf("got %v, want a limit error", err)
	}
	if !strings.Contains(err.Error(), "use Pipes") || le.Need <= int(le.Limit) {
		t.Errorf("limit error gives no remedy: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("limit error took %v: was work done first?", d)
	}
	if after := openFDs(t); after != before {
		t.Errorf("%d descriptors before, %d after a refused run", before, after)
	}
}

func TestRunConfigErrors(t *testing.T) {
	cases := []struct {
		name string
		edit func(*pipebench.Config)
		want string
	}{
		{"no pipes", func(c *pipebench.Config) { c.Pipes = 0 }, "Pipes"},
		{"too many in flight", func(c *pipebench.Config) { c.InFlight = pipebench.MaxInFlight + 1 }, "InFlight"},
		{"unbounded self", func(c *pipebench.Config) { c.InFlight = 0; c.Writer = pipebench.WriterSelf }, "InFlight 0"},
		{"bypass with thread", func(c *pipebench.Config) { c.Backend = &pipebench.Bypass; c.Writer = pipebench.WriterThread }, "Writer self"},
		{"bypass unbounded", func(c *pipebench.Config) { c.Backend = &pipebench.Bypass; c.InFlight = 0 }, "InFlight 0"},
		{"no backend", func(c *pipebench.Config) { c.Backend = nil }, "Backend"},
		{"no interval", func(c *pipebench.Config) { c.Interval = 0 }, "Interval"},
		{"warm-up of every interval", func(c *pipebench.Config) { c.Warmup = 4 }, "Warmup 4 would leave none of the 4 intervals of Duration 400ms Interval 100ms"},
		{"negative warm-up", func(c *pipebench.Config) { c.Warmup = -1 }, "Warmup -1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := baseConfig()
			c.edit(&cfg)
			_, err := pipebench.Run(cfg, pipebench.Observers{})
			var ce *pipebench.ConfigError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want a config error mentioning %q", err, c.want)
			}
		})
	}
}

func TestRunWriterProcessStopped(t *testing.T) {
	cfg := baseConfig()
	cfg.Writer = pipebench.WriterProcess
	cfg.Duration = 30 * time.Second
	cfg.StallAfter = 300 * time.Millisecond
	var pids []int
	var obs pipebench.Observers
	obs.OnInterval = func(iv pipebench.Interval) {
		if iv.Index == 1 {
			pids = childPIDs(t)
			for _, pid := range pids {
				syscall.Kill(pid, syscall.SIGSTOP)
			}
		}
	}
	start := time.Now()
	res, err := pipebench.Run(cfg, obs)
	var stall *pipebench.StallError
	if !errors.As(err, &stall) {
		t.Fatalf("got %v, want a stall", err)
	}
	checkFailedResult(t, res)
	if !res.Tokens.SentUnknown || res.Tokens.Lost != 0 {
		t.Errorf("a writer that never reported has no count: %+v", res.Tokens)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("a stopped writer held the run for %v", d)
	}
	for _, pid := range pids {
		if syscall.Kill(pid, 0) == nil {
			t.Errorf("writer process %d still exists after the run", pid)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
