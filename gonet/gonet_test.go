package gonet_test

import (
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/gonet"
	"github.com/pipebench/pipebench/internal/child"
	"github.com/pipebench/pipebench/internal/fdlimit"
	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/pipebench/pipebenchtest"
)

// TestMain lets this test binary serve as its own writer process.
func TestMain(m *testing.M) {
	child.Serve()
	os.Exit(m.Run())
}

// TestGonet is the loops' part of the conformance suite: the checks of
// registration and the harness runs in every writer mode, with token
// accounting, credit words per read, latency samples per token and no
// descriptor left open.
func TestGonet(t *testing.T) { pipebenchtest.TestLoop(t, gonet.Factory) }

// TestRunCounts: a gonet run makes no readiness call (samples per call
// does not apply), counts every read(2), those that find the pipe empty
// before the goroutine parks included, and returns one credit word per
// read.
func TestRunCounts(t *testing.T) {
	res, err := pipebench.Run(pipebench.Config{
		Workload:  pipebench.Workload{Pipes: 20, InFlight: 1, Route: pipebench.RouteNext},
		Readiness: pipebench.Readiness{Backend: &gonet.Factory},
		Threads:   pipebench.Threads{Writer: pipebench.WriterThread},
		Window:    pipebench.Window{Duration: 300 * time.Millisecond, Interval: 100 * time.Millisecond},
	}, pipebench.Observers{})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.CheckValid(); err != nil {
		t.Fatal(err)
	}
	tot := res.Totals
	if !res.Setup.NoReadinessCalls || tot.Calls != 0 || tot.Ctl != 0 {
		t.Errorf("NoReadinessCalls %v, %d readiness calls, %d ctl calls while measuring; want true, 0, 0", res.Setup.NoReadinessCalls, tot.Calls, tot.Ctl)
	}
	for _, iv := range res.Intervals {
		if iv.SamplesPerCall != 0 {
			t.Errorf("interval %d: samples per call %v, want 0 (n/a)", iv.Index, iv.SamplesPerCall)
		}
	}
	// One token, sent on to the next pipe: the pipe just read stays empty
	// until the token comes round again, so an event is a read that finds
	// it and one that finds the pipe empty before parking. Not every one:
	// a goroutine that the Go scheduler runs late (its first read, or its
	// read after an event, made once the token is back) finds the token
	// without having parked, which a loaded machine (go test -race ./...)
	// does a few times in a run.
	if tot.Reads < tot.Events+tot.Events*9/10 {
		t.Errorf("%d reads for %d events, want about two per event", tot.Reads, tot.Events)
	}
	if tot.Writes != tot.Events {
		t.Errorf("%d credit words for %d events, want one per read", tot.Writes, tot.Events)
	}
}

// TestRefused: settings about a readiness call or a reader thread are
// refused before any work, naming the Config field.
func TestRefused(t *testing.T) {
	for _, c := range []struct {
		field string
		edit  func(*pipebench.Config)
	}{
		{"Churn", func(c *pipebench.Config) { c.Churn = 2 }},
		{"Delay", func(c *pipebench.Config) { c.Delay = time.Millisecond }},
		{"CPUs", func(c *pipebench.Config) { c.CPUs = []int{0} }},
	} {
		t.Run(c.field, func(t *testing.T) {
			cfg := pipebench.Config{Workload: pipebench.Workload{Pipes: 10, InFlight: 1}, Readiness: pipebench.Readiness{Backend: &gonet.Factory}, Window: pipebench.Window{Duration: time.Second, Interval: time.Second}}
			c.edit(&cfg)
			_, err := pipebench.Run(cfg, pipebench.Observers{})
			var ce *pipebench.ConfigError
			if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), c.field+" with Backend gonet") {
				t.Fatalf("got %v, want a config error naming %s", err, c.field)
			}
		})
	}
}

// TestPlanCountsDuplicates: the descriptor plan counts the duplicate each
// pipe hands to the runtime: one process then holds three per pipe in
// self mode, where the pipes alone take two. Both runs are past any
// machine's limit, so the two refusals' needs differ by exactly the
// descriptors of the pipes between them, whatever this process holds.
func TestPlanCountsDuplicates(t *testing.T) {
	need := func(pipes int) int {
		t.Helper()
		cfg := pipebench.Config{Workload: pipebench.Workload{Pipes: pipes, InFlight: 1}, Readiness: pipebench.Readiness{Backend: &gonet.Factory}, Threads: pipebench.Threads{Writer: pipebench.WriterSelf}, Window: pipebench.Window{Interval: time.Second}}
		_, err := pipebench.Prepare(cfg, 0, nil)
		if err == nil {
			t.Skipf("this machine's descriptor limit fits %d pipes", pipes)
		}
		var le *pipebench.LimitError
		if !errors.As(err, &le) || !strings.HasPrefix(err.Error(), "Pipes ") {
			t.Fatalf("%d pipes: got %v, want a limit error naming Pipes", pipes, err)
		}
		return le.Need
	}
	if got := need(2000000) - need(1000000); got != 3*1000000 {
		t.Errorf("a million pipes more need %d descriptors more, want 3 per pipe (%d)", got, 3*1000000)
	}
}

// TestRegistration: Add hands the runtime a duplicate (one descriptor more
// per pipe) and refuses a second Add of the same descriptor and a blocking
// one; Remove and Close close the duplicates, each an epoll_ctl of the
// runtime's, and never the registered descriptors; Wait is refused.
func TestRegistration(t *testing.T) {
	open := func() int {
		n, err := fdlimit.OpenFDs()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	pipe := func(flags int) [2]int {
		var p [2]int
		if err := unix.Pipe2(p[:], flags|unix.O_CLOEXEC); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { unix.Close(p[0]); unix.Close(p[1]) })
		return p
	}
	pipes := [][2]int{pipe(unix.O_NONBLOCK), pipe(unix.O_NONBLOCK), pipe(unix.O_NONBLOCK)}
	blocking := pipe(0)
	be, err := gonet.Factory.OpenLoop(pipebench.Options{Pipes: 3, MaxFD: 64})
	if err != nil {
		t.Fatal(err)
	}
	before := open()
	for i, p := range pipes {
		if err := be.Add(p[0], int32(i)); err != nil {
			t.Fatal(err)
		}
	}
	if got := open(); got != before+3 {
		t.Errorf("%d descriptors after 3 Adds, want %d (one duplicate each)", got, before+3)
	}
	if be.Add(pipes[0][0], 9) == nil {
		t.Error("a second Add of the same descriptor succeeded")
	}
	if err := be.Add(blocking[0], 7); err == nil || !strings.Contains(err.Error(), "blocking") {
		t.Errorf("Add of a blocking descriptor: %v, want a refusal", err)
	}
	if err := be.Remove(pipes[1][0], 1); err != nil {
		t.Fatal(err)
	}
	if be.Remove(pipes[1][0], 1) == nil {
		t.Error("a second Remove succeeded")
	}
	if err := be.Close(); err != nil {
		t.Fatal(err)
	}
	if got := open(); got != before {
		t.Errorf("%d descriptors after Close, want %d", got, before)
	}
	for i, p := range pipes {
		if _, err := unix.FcntlInt(uintptr(p[0]), unix.F_GETFD, 0); err != nil {
			t.Errorf("pipe %d: read end closed by the backend: %v", i, err)
		}
	}
	if got := be.CtlCalls(); got != 6 {
		t.Errorf("CtlCalls %d, want 6 (3 registrations, 1 Remove, 2 closed by Close)", got)
	}
}

// TestDriveAllocatesNothing: the goroutines' loop allocates nothing per
// event: a one-second self-mode run allocates far fewer objects than it
// handles events (what it does allocate is per interval, per run).
func TestDriveAllocatesNothing(t *testing.T) {
	var m0, m1 runtime.MemStats
	res, err := pipebench.Run(pipebench.Config{
		Workload:  pipebench.Workload{Pipes: 20, InFlight: 4},
		Readiness: pipebench.Readiness{Backend: &gonet.Factory},
		Threads:   pipebench.Threads{Writer: pipebench.WriterSelf},
		Window:    pipebench.Window{Duration: 500 * time.Millisecond, Interval: 250 * time.Millisecond},
	}, pipebench.Observers{
		OnSetup: func(pipebench.Setup) { runtime.ReadMemStats(&m0) },
		OnDone:  func() { runtime.ReadMemStats(&m1) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.CheckValid(); err != nil {
		t.Fatal(err)
	}
	events := res.Totals.Events
	if allocs := m1.Mallocs - m0.Mallocs; events < 1000 || allocs > events/100 {
		t.Errorf("%d allocations in a window of %d events, want fewer than one per 100 events", allocs, events)
	}
}
