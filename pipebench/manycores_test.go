package pipebench_test

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pipebench/pipebench/epoll"
	"github.com/pipebench/pipebench/internal/osthread"
	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/poll"
	"github.com/pipebench/pipebench/uring"
)

// checkThreads asserts what a run with several readers or writers owes
// beyond its result's invariants (checkAccounting: every reader's and
// writer's row adds up to the run's): every thread has a row, and each
// reader and writer did work.
func checkThreads(t *testing.T, res *pipebench.Result, readers, writers int) {
	t.Helper()
	checkAccounting(t, res)
	if len(res.Readers) != readers || len(res.Writers) != writers {
		t.Fatalf("%d reader rows and %d writer rows, want %d and %d", len(res.Readers), len(res.Writers), readers, writers)
	}
	if s := res.Setup; len(s.ReaderTIDs) != readers || len(s.WriterTIDs) != writers || s.Readers != readers || s.Writers != writers {
		t.Fatalf("setup names readers %v (%d), writers %v (%d); want %d and %d", s.ReaderTIDs, s.Readers, s.WriterTIDs, s.Writers, readers, writers)
	}
	for k, rd := range res.Readers {
		if rd.Totals.Events == 0 || rd.Usage.CPU() <= 0 {
			t.Errorf("reader %d did nothing: %+v", k, rd)
		}
	}
	for w, wr := range res.Writers {
		if wr.Sent == 0 {
			t.Errorf("writer %d sent nothing: %+v", w, wr)
		}
	}
}

func TestRunManyReadersWriters(t *testing.T) {
	cases := []struct {
		name             string
		backend          *pipebench.Factory
		pipes, inFlight  int
		readers, writers int
		maxEvents        int
		source           pipebench.Source
		share            bool
		nest             int
	}{
		{"epoll 4 writers 2 readers eventfd", &epoll.LevelFactory, 16, 8, 2, 4, 0, pipebench.SourceEventfd, false, 0},
		{"epoll 3 writers 1 reader unbounded", &epoll.LevelFactory, 30, 0, 1, 3, 0, pipebench.SourceEventfd, false, 0},
		{"epoll 1 writer 3 readers maxevents 1", &epoll.LevelFactory, 31, 6, 3, 1, 1, pipebench.SourcePipe, false, 0},
		{"epoll-et 2 writers 2 readers", &epoll.EdgeFactory, 40, 5, 2, 2, 0, pipebench.SourcePipe, false, 0},
		{"epoll-oneshot 2 writers 2 readers", &epoll.OneShotFactory, 40, 5, 2, 2, 2, pipebench.SourcePipe, false, 0},
		{"poll 2 writers 3 readers", &poll.Factory, 50, 7, 3, 2, 0, pipebench.SourcePipe, false, 0},
		{"uring 2 writers 2 readers", &uring.Factory, 20, 4, 2, 2, 0, pipebench.SourcePipe, false, 0},
		// -share: every reader waits on one instance over all the pipes.
		{"epoll 2 readers shared maxevents 1", &epoll.LevelFactory, 64, 8, 2, 1, 1, pipebench.SourceEventfd, true, 0},
		{"epoll-et 3 readers shared 2 writers", &epoll.EdgeFactory, 30, 6, 3, 2, 0, pipebench.SourcePipe, true, 0},
		{"epoll-oneshot 2 readers shared", &epoll.OneShotFactory, 30, 6, 2, 1, 0, pipebench.SourcePipe, true, 0},
		{"epoll 2 readers shared nest 2", &epoll.LevelFactory, 30, 6, 2, 1, 0, pipebench.SourcePipe, true, 2},
		{"epoll 2 readers shared unbounded", &epoll.LevelFactory, 8, 0, 2, 1, 0, pipebench.SourceEventfd, true, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := pipebench.Config{
				Workload:  pipebench.Workload{Pipes: c.pipes, InFlight: c.inFlight, Source: c.source, RouteSeed: 3},
				Readiness: pipebench.Readiness{Backend: c.backend, MaxEvents: c.maxEvents, Share: c.share, Nest: c.nest},
				Threads:   pipebench.Threads{Writer: pipebench.WriterThread, Readers: c.readers, Writers: c.writers},
				Window:    pipebench.Window{Duration: 300 * time.Millisecond, Interval: 100 * time.Millisecond},
			}
			res, err := pipebench.Run(cfg, pipebench.Observers{})
			if err != nil {
				t.Fatal(err)
			}
			checkThreads(t, res, c.readers, c.writers)
			if want := c.readers + c.writers; res.Setup.LentPs != want {
				t.Errorf("%d Ps lent, want one per measured thread: %d", res.Setup.LentPs, want)
			}
			if c.maxEvents > 0 && res.PerCall.Max() > uint64(c.maxEvents) {
				t.Errorf("a readiness call returned %d ready, more than -maxevents %d", res.PerCall.Max(), c.maxEvents)
			}
		})
	}
}

// refusal is a setting Validate must refuse: set changes a valid base
// configuration, and the error must say want.
type refusal struct {
	name string
	set  func(*pipebench.Config)
	want string
}

// checkRefused requires Prepare to refuse each case, saying what it wants.
func checkRefused(t *testing.T, cases []refusal) {
	t.Helper()
	base := pipebench.Config{Workload: pipebench.Workload{Pipes: 8, InFlight: 4}, Readiness: pipebench.Readiness{Backend: &epoll.LevelFactory}, Window: pipebench.Window{Duration: time.Second, Interval: time.Second}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := base
			c.set(&cfg)
			_, err := pipebench.Prepare(cfg, 0, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Prepare: %v, want an error saying %q", err, c.want)
			}
		})
	}
}

func TestRunManyRefused(t *testing.T) {
	checkRefused(t, []refusal{
		{"self", func(c *pipebench.Config) { c.Writer, c.Readers = pipebench.WriterSelf, 2 }, "need Writer thread"},
		{"process", func(c *pipebench.Config) { c.Writer, c.Writers = pipebench.WriterProcess, 2 }, "need Writer thread"},
		{"bypass", func(c *pipebench.Config) { c.Backend, c.Readers = &pipebench.Bypass, 2 }, "no readiness call"},
		{"fewer pipes", func(c *pipebench.Config) { c.Readers = 9 }, "at least one pipe per reader"},
		{"fewer tokens", func(c *pipebench.Config) { c.Writers = 5 }, "at least one token per writer"},
		{"too many", func(c *pipebench.Config) { c.Readers = pipebench.MaxThreads + 1 }, "want 1 to 1024 reader threads"},
		{"maxevents", func(c *pipebench.Config) { c.MaxEvents = -1 }, "MaxEvents -1"},
		{"cpu list length", func(c *pipebench.Config) { c.Readers, c.Writers, c.CPUs = 2, 2, []int{0, 0, 0} }, "one per measured thread: 2 readers, then 2 writers"},
		{"cpu spread and list", func(c *pipebench.Config) { c.Spread, c.CPUs = true, []int{0} }, "spread or a list"},
		{"cpus not allowed", func(c *pipebench.Config) { c.Readers, c.CPUs = 2, []int{0, 9999, 9998} }, "[9999 9998]: this process may not run on these"},
		{"share one reader", func(c *pipebench.Config) { c.Share = true }, "Share with Readers 1: want 2 or more readers"},
		{"share poll", func(c *pipebench.Config) { c.Backend, c.Readers, c.Share = &poll.Factory, 2, true }, "Share with Backend poll: only epoll"},
		{"share uring", func(c *pipebench.Config) { c.Backend, c.Readers, c.Share = &uring.Factory, 2, true }, "Share with Backend uring: only epoll"},
		{"share churn", func(c *pipebench.Config) { c.Readers, c.Share, c.Churn = 2, true, 1 }, "would remove and re-add each other's descriptors"},
		{"share self", func(c *pipebench.Config) { c.Writer, c.Readers, c.Share = pipebench.WriterSelf, 2, true }, "need Writer thread"},
	})
}

func TestRunSpreadPins(t *testing.T) {
	allowed, err := osthread.AllowedCPUs()
	if err != nil {
		t.Fatal(err)
	}
	cfg := pipebench.Config{
		Workload:  pipebench.Workload{Pipes: 8, InFlight: 4},
		Readiness: pipebench.Readiness{Backend: &epoll.LevelFactory},
		Threads:   pipebench.Threads{Writer: pipebench.WriterThread, Readers: 2, Writers: 2, Spread: true},
		Window:    pipebench.Window{Duration: 200 * time.Millisecond, Interval: 100 * time.Millisecond},
	}
	res, err := pipebench.Run(cfg, pipebench.Observers{})
	if err != nil {
		t.Fatal(err)
	}
	checkThreads(t, res, 2, 2)
	want := make([]int, 4)
	for i := range want {
		want[i] = allowed[i%len(allowed)]
	}
	if !res.Setup.Spread || len(res.Setup.CPUs) != 4 {
		t.Fatalf("setup says spread %v over %v, want %v", res.Setup.Spread, res.Setup.CPUs, want)
	}
	for i := range want {
		if res.Setup.CPUs[i] != want[i] {
			t.Fatalf("spread pinned %v, want %v", res.Setup.CPUs, want)
		}
	}
}

// TestRunPinnedThreadsRestored checks that a run's pinned threads do not go
// back to the Go runtime's pool with their narrowed affinity: every thread
// the program runs on afterwards may still use every CPU it could before.
// (They get their affinity back rather than end: a thread that ends kills
// the writer process it happened to start, Pdeathsig.)
func TestRunPinnedThreadsRestored(t *testing.T) {
	allowed, err := osthread.AllowedCPUs()
	if err != nil {
		t.Fatal(err)
	}
	if len(allowed) < 2 {
		t.Skipf("this process may run on CPUs %v only: pinning narrows nothing", allowed)
	}
	last := allowed[len(allowed)-1]
	cfg := pipebench.Config{
		Workload:  pipebench.Workload{Pipes: 8, InFlight: 4},
		Readiness: pipebench.Readiness{Backend: &epoll.LevelFactory},
		Threads:   pipebench.Threads{Writer: pipebench.WriterThread, Readers: 2, Writers: 2, CPUs: []int{last}},
		Window:    pipebench.Window{Duration: 100 * time.Millisecond, Interval: 100 * time.Millisecond},
	}
	res, err := pipebench.Run(cfg, pipebench.Observers{})
	if err != nil {
		t.Fatal(err)
	}
	checkAccounting(t, res)
	// Hold many threads at once, so that any idle thread of the pool is
	// among them.
	const threads = 32
	got := make(chan []int, threads)
	hold := make(chan struct{})
	for range threads {
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			cpus, _ := osthread.AllowedCPUs()
			got <- cpus
			<-hold
		}()
	}
	for range threads {
		if cpus := <-got; len(cpus) != len(allowed) {
			t.Errorf("a thread may run on CPUs %v after a run pinned to %d; the process could use %v", cpus, last, allowed)
		}
	}
	close(hold)
}
