package pipebench_test

import (
	"testing"
	"time"

	"github.com/pipebench/pipebench/epoll"
	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/poll"
)

// TestRunNested runs the epoll variants with the pipes below a chain of
// nested sets, in each writer mode and with two readers: every token is
// accounted for, the setup says the depth, and every readiness call that
// found a descriptor made two epoll_pwait calls (the top set's and the
// bottom set's), no call more than two.
func TestRunNested(t *testing.T) {
	cases := []struct {
		name    string
		backend *pipebench.Factory
		writer  pipebench.WriterMode
		nest    int
		readers int
	}{
		{"epoll thread nest 1", &epoll.LevelFactory, pipebench.WriterThread, 1, 1},
		{"epoll self nest 4", &epoll.LevelFactory, pipebench.WriterSelf, pipebench.MaxNest, 1},
		{"epoll-et process nest 2", &epoll.EdgeFactory, pipebench.WriterProcess, 2, 1},
		{"epoll-oneshot thread nest 3", &epoll.OneShotFactory, pipebench.WriterThread, 3, 1},
		{"epoll 2 readers nest 2", &epoll.LevelFactory, pipebench.WriterThread, 2, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := pipebench.Config{
				Workload:  pipebench.Workload{Pipes: 40, InFlight: 8, RouteSeed: 5},
				Readiness: pipebench.Readiness{Backend: c.backend, Nest: c.nest},
				Threads:   pipebench.Threads{Writer: c.writer, Readers: c.readers},
				Window:    pipebench.Window{Duration: 300 * time.Millisecond, Interval: 100 * time.Millisecond},
			}
			res, err := pipebench.Run(cfg, pipebench.Observers{})
			if err != nil {
				t.Fatal(err)
			}
			checkAccounting(t, res)
			if res.Setup.Nest != c.nest {
				t.Errorf("setup says nest %d, want %d", res.Setup.Nest, c.nest)
			}
			tot := res.Totals
			if tot.Calls < 100 {
				t.Fatalf("only %d readiness calls: too few to check the system calls per call", tot.Calls)
			}
			found := tot.Calls - tot.EmptyCalls
			if lo, hi := 2*found+tot.EmptyCalls, 2*tot.Calls+tot.Calls/100; tot.WaitSyscalls < lo || tot.WaitSyscalls > hi {
				t.Errorf("%d epoll_pwait calls for %d readiness calls (%d empty): want %d to %d, two for each call that found a descriptor",
					tot.WaitSyscalls, tot.Calls, tot.EmptyCalls, lo, hi)
			}
		})
	}
}

func TestNestRefused(t *testing.T) {
	checkRefused(t, []refusal{
		{"too deep", func(c *pipebench.Config) { c.Nest = pipebench.MaxNest + 1 }, "Nest 5: want 0 to 4 levels"},
		{"negative", func(c *pipebench.Config) { c.Nest = -1 }, "Nest -1: want 0 to 4"},
		{"poll", func(c *pipebench.Config) { c.Backend, c.Nest = &poll.Factory, 1 }, "Nest with Backend poll: only the epoll backends nest"},
		{"bypass", func(c *pipebench.Config) { c.Backend, c.Nest = &pipebench.Bypass, 1 }, "only the epoll backends nest"},
	})
}

// TestPlanCountsNest checks that the descriptor plan counts each reader's
// backend instance, and each one's nested sets.
func TestPlanCountsNest(t *testing.T) {
	plan := func(readers, nest int) int {
		t.Helper()
		c := pipebench.Config{Workload: pipebench.Workload{Pipes: 100, InFlight: 4}, Readiness: pipebench.Readiness{Backend: &epoll.LevelFactory, Nest: nest}, Threads: pipebench.Threads{Writer: pipebench.WriterThread, Readers: readers}}
		p, err := pipebench.PlanFDs(&c, 10, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		return p.ReaderFDs
	}
	base := plan(1, 0)
	for _, c := range []struct{ readers, nest, more int }{{1, 4, 4}, {3, 0, 2}, {3, 2, 8}} {
		if got := plan(c.readers, c.nest) - base; got != c.more {
			t.Errorf("%d readers, nest %d: the plan holds %d descriptors more than one reader without nesting, want %d", c.readers, c.nest, got, c.more)
		}
	}
}
