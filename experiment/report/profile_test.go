package report

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pipebench/pipebench/epoll"
	"github.com/pipebench/pipebench/internal/profile"
	"github.com/pipebench/pipebench/pipebench"
)

// TestTargets: the processes a run's kernel profile records and the names
// of their threads, in self, thread and process mode, with several
// readers and writers.
func TestTargets(t *testing.T) {
	self := targets(pipebench.Setup{PID: 10, WriterPID: 10, ReaderTID: 11, WriterTID: 11})
	if len(self.PIDs) != 1 || self.Roles[11] != pipebench.RoleSelf || self.Processes[10] != "main" {
		t.Errorf("self mode: %+v", self)
	}
	thread := targets(pipebench.Setup{PID: 10, WriterPID: 10, ReaderTID: 11, WriterTID: 12})
	if len(thread.PIDs) != 1 || thread.Roles[11] != pipebench.RoleReader || thread.Roles[12] != pipebench.RoleWriter {
		t.Errorf("thread mode: %+v", thread)
	}
	proc := targets(pipebench.Setup{PID: 10, WriterPID: 20, ReaderTID: 11, WriterTID: 21, ReaderTIDs: []int{11, 13}, WriterTIDs: []int{21, 22}})
	if len(proc.PIDs) != 2 || proc.PIDs[1] != 20 || proc.Processes[20] != "writer" || proc.Roles[13] != pipebench.RoleReader ||
		proc.Roles[22] != pipebench.RoleWriter {
		t.Errorf("process mode, several readers and writers: %+v", proc)
	}
}

// TestHookProfilerStopsTheRun: a kernel profile that cannot start (no
// perf to run) stops the run it is hooked to, soon after its window opens,
// and is Finish's error; the run's own observers still run.
func TestHookProfilerStopsTheRun(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	path := filepath.Join(t.TempDir(), "k.pb.gz")
	p := profile.NewProfiler("", path)
	cfg := pipebench.Config{
		Workload:  pipebench.Workload{Pipes: 4, InFlight: 1, RouteSeed: 1},
		Readiness: pipebench.Readiness{Backend: &epoll.LevelFactory},
		Threads:   pipebench.Threads{Writer: pipebench.WriterSelf},
		Window:    pipebench.Window{Duration: time.Minute, Interval: 100 * time.Millisecond},
	}
	var setups, dones int
	obs := pipebench.Observers{OnSetup: func(pipebench.Setup) { setups++ }, OnDone: func() { dones++ }}
	t0 := time.Now()
	res, err := pipebench.Run(cfg, HookProfiler(p, cfg, obs))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || time.Since(t0) > 30*time.Second {
		t.Errorf("the run went on without its profile: interrupted %v after %v", res.Interrupted, time.Since(t0))
	}
	if setups != 1 || dones != 1 {
		t.Errorf("the run's own hooks ran %d and %d times, want once each", setups, dones)
	}
	_, err = p.Finish()
	var perr *profile.Error
	if !errors.As(err, &perr) || perr.Kind != profile.Kernel {
		t.Errorf("Finish: %v, want the kernel profile's failure to start", err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("a profile that never started was written")
	}
}
