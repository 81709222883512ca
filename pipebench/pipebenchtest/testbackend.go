package pipebenchtest

import (
	"testing"

	"github.com/pipebench/pipebench/pipebench"
)

// TestBackend checks that the backends f opens keep the pipebench.Backend
// contract, each rule in its own subtest, on real non-blocking pipes, and
// that the harness runs on them (Runs). A backend package calls it from its
// own test:
//
//	func TestPoll(t *testing.T) { pipebenchtest.TestBackend(t, poll.Factory) }
//
// It is the one entry point, and adapts to the features f declares: the
// checks of Wait apply to a backend with a readiness call; one that
// declares NoWaitCall (a pipebench.Driver: the bypass, gonet) takes the
// checks of registration that need no Wait, and the harness runs, which
// are the only way to exercise a Driver. Runs need the test binary to
// serve as its own writer process: call child.Serve (internal/child)
// first thing in TestMain.
//
// Subtests that need many descriptors raise RLIMIT_NOFILE to its hard limit
// and skip, saying why, if that is not enough.
func TestBackend(t *testing.T, f pipebench.Factory) {
	t.Helper()
	if err := f.Validate(); err != nil {
		t.Fatalf("invalid factory: %v", err)
	}
	if f.FDs < 0 {
		t.Fatalf("%s: factory declares %d descriptors per instance", f.Name, f.FDs)
	}
	if f.Features.Has(pipebench.Goroutines) && !f.Features.Has(pipebench.NoWaitCall) {
		t.Fatalf("%s: declares Goroutines without NoWaitCall: only a Driver reads on goroutines", f.Name)
	}
	noWait := f.Features.Has(pipebench.NoWaitCall)
	for _, c := range checks {
		if c.waits && noWait {
			continue
		}
		t.Run(c.name, func(t *testing.T) { c.run(t, f) })
	}
}

// checks are the subtests of TestBackend, in the order they run; those
// that call Wait are left out for a backend that declares NoWaitCall.
var checks = []struct {
	name  string
	run   func(*testing.T, pipebench.Factory)
	waits bool
}{
	{"NothingWritten", checkNothingWritten, true},
	{"OneWritten", checkOneWritten, true},
	{"ReadDry", checkReadDry, true},
	{"SeveralWritten", checkSeveralWritten, true},
	{"EndOfFile", checkEndOfFile, true},
	{"Remove", checkRemove, true},
	{"RemoveAfterReport", checkRemoveAfterReport, true},
	{"ReAdd", checkReAdd, true},
	{"AddDuplicate", checkAddDuplicate, true},
	{"CloseKeepsDescriptors", checkCloseKeepsDescriptors, false},
	{"WokenByWrite", checkWokenByWrite, true},
	{"EINTR", checkEINTR, true},
	{"StopTheWorld", checkStopTheWorld, true},
	{"HighDescriptors", checkHighDescriptors, true},
	{"ManyPipes", checkManyPipes, true},
	{"ShortReadySlice", checkShortReadySlice, true},
	{"WaitDoesNotAllocate", checkWaitDoesNotAllocate, true},
	{"CtlCalls", checkCtlCalls, true},
	{"WaitSyscalls", checkWaitSyscalls, true},
	{"Arm", checkArm, true},
	{"Registration", checkRegistration, false},
	{"Runs", checkRuns, false},
}
