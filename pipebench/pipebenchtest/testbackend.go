package pipebenchtest

import (
	"testing"
	"time"

	"github.com/pipebench/pipebench/pipebench"
)

// The suite has a part for each of the two tables (pipebench.Mechanism and
// pipebench.Loop). A backend package calls its part from its own test:
//
//	func TestPoll(t *testing.T) { pipebenchtest.TestMechanism(t, poll.Factory) }
//	func TestGonet(t *testing.T) { pipebenchtest.TestLoop(t, gonet.Factory) }
//
// Each runs its checks as subtests, on real non-blocking pipes, and the
// harness on the backend (Runs). Runs need the test binary to serve as its
// own writer process: call child.Serve (internal/child) first thing
// in TestMain. Subtests that need many descriptors raise RLIMIT_NOFILE to
// its hard limit and skip, saying why, if that is not enough.

// TestMechanism checks that the backends f opens keep the
// pipebench.Mechanism contract: the readiness rules of Wait, registration
// (Interest), what Wait costs and counts, and harness runs over the
// reader's loop.
func TestMechanism(t *testing.T, f pipebench.Factory) {
	t.Helper()
	checkFactory(t, f)
	if f.IsLoop() {
		t.Fatalf("%s opens a Loop: call TestLoop", f.Name)
	}
	if f.Features.Has(pipebench.Goroutines) || f.Features.Has(pipebench.FollowsRoute) {
		t.Fatalf("%s: a Mechanism declares Goroutines or FollowsRoute, which only a Loop can", f.Name)
	}
	run(t, f, mechanismChecks)
}

// TestLoop checks that the backends f opens keep the pipebench.Loop
// contract: registration (Interest) without a Wait, and harness runs in
// which the Loop replaces the reader's loop, on every writer mode it runs
// with: every token accounted for, counted through the Surface's Workers,
// no readiness call, and a Run that returns when the run ends.
func TestLoop(t *testing.T, f pipebench.Factory) {
	t.Helper()
	checkFactory(t, f)
	if !f.IsLoop() {
		t.Fatalf("%s opens a Mechanism: call TestMechanism", f.Name)
	}
	if f.Features.Has(pipebench.Nests) || f.Features.Has(pipebench.Shares) {
		t.Fatalf("%s: a Loop declares Nests or Shares, which only a Mechanism can", f.Name)
	}
	run(t, f, loopChecks)
}

// checkFactory fails on a factory the harness cannot use.
func checkFactory(t *testing.T, f pipebench.Factory) {
	t.Helper()
	if err := f.Validate(); err != nil {
		t.Fatalf("invalid factory: %v", err)
	}
	if f.FDs < 0 {
		t.Fatalf("%s: factory declares %d descriptors per instance", f.Name, f.FDs)
	}
}

type check struct {
	name string
	run  func(*testing.T, pipebench.Factory)
}

func run(t *testing.T, f pipebench.Factory, checks []check) {
	t.Helper()
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) { c.run(t, f) })
	}
}

// mechanismChecks are TestMechanism's subtests, in the order they run.
var mechanismChecks = []check{
	{"NothingWritten", checkNothingWritten},
	{"OneWritten", checkOneWritten},
	{"ReadDry", checkReadDry},
	{"SeveralWritten", checkSeveralWritten},
	{"EndOfFile", checkEndOfFile},
	{"Remove", checkRemove},
	{"RemoveAfterReport", checkRemoveAfterReport},
	{"ReAdd", checkReAdd},
	{"AddDuplicate", checkAddDuplicate},
	{"CloseKeepsDescriptors", checkCloseKeepsDescriptors},
	{"WokenByWrite", checkWokenByWrite},
	{"EINTR", checkEINTR},
	{"StopTheWorld", checkStopTheWorld},
	{"HighDescriptors", checkHighDescriptors},
	{"ManyPipes", checkManyPipes},
	{"ShortReadySlice", checkShortReadySlice},
	{"WaitDoesNotAllocate", checkWaitDoesNotAllocate},
	{"CtlCalls", checkCtlCalls},
	{"WaitSyscalls", checkWaitSyscalls},
	{"Arm", checkArm},
	{"Registration", checkRegistration},
	{"Runs", checkRuns},
}

// loopChecks are TestLoop's subtests, in the order they run: those of
// registration that need no Wait, and the harness runs, which are the only
// way to exercise a Loop's Run.
var loopChecks = []check{
	{"NoWait", checkNoWait},
	{"CloseKeepsDescriptors", checkCloseKeepsDescriptors},
	{"Registration", checkRegistration},
	{"Runs", checkRuns},
}

// checkNoWait: a Loop has no readiness call to make, so it has no Wait:
// it does not stub one.
func checkNoWait(t *testing.T, f pipebench.Factory) {
	x := newFixture(t, f, 1)
	if _, ok := x.in.(interface {
		Wait([]int32, time.Duration) (int, error)
	}); ok {
		t.Errorf("%s: a Loop with a Wait method: a Loop makes no readiness call, and stubs none", f.Name)
	}
	if _, ok := x.in.(interface{ WaitSyscalls() uint64 }); ok {
		t.Errorf("%s: a Loop with a WaitSyscalls method: it counts its system calls through its Workers (Worker.Entered)", f.Name)
	}
}
