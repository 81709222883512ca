package pipebenchtest

import (
	"testing"

	"github.com/pipebench/pipebench/pipebench"
)

// TestBackend checks that the backends f opens keep the pipebench.Backend
// contract, each rule in its own subtest, on real non-blocking pipes. A
// backend package calls it from its own test:
//
//	func TestPoll(t *testing.T) { pipebenchtest.TestBackend(t, poll.Factory) }
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
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) { c.run(t, f) })
	}
}

// checks are the subtests of TestBackend, in the order they run.
var checks = []struct {
	name string
	run  func(*testing.T, pipebench.Factory)
}{
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
}
