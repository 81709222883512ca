package pipebenchtest

import (
	"testing"

	"github.com/pipebench/pipebench/pipebench"
)

// checkRemove: a removed pipe is never reported, whether it was written
// before or after Remove, and the others still are.
func checkRemove(t *testing.T, f pipebench.Factory) {
	x := newFixture(t, f, 4)
	x.pipes[1].write(t)
	x.pipes[2].write(t)
	x.remove(1)
	x.collect(2)
	x.expectNone("pipe 1 written, then removed")
	x.remove(3)
	x.pipes[3].write(t)
	x.expectNone("pipe 3 removed, then written")
}

// checkRemoveAfterReport: a pipe reported and then removed before it is
// read is not reported again, and the next Wait does not fail on it (a
// one-shot backend must not re-arm it).
func checkRemoveAfterReport(t *testing.T, f pipebench.Factory) {
	x := newFixture(t, f, 3)
	x.pipes[0].write(t)
	x.expectOnly(0, "written")
	x.remove(0)
	x.expectNone("reported, then removed before being read")
	x.pipes[0].write(t)
	x.expectNone("removed, then written again")
}

// checkReAdd: a removed descriptor added again under a new tag is reported
// by the new tag only, also when it was reported and still holds data.
func checkReAdd(t *testing.T, f pipebench.Factory) {
	t.Run("AfterRemove", func(t *testing.T) {
		x := newFixture(t, f, 3)
		x.remove(1)
		x.add(1, 1)
		x.pipes[1].write(t)
		x.expectOnly(1, "re-added under a new tag, then written")
		x.pipes[1].drain(t)
		x.expectNone("re-added pipe read dry")
	})
	t.Run("AfterReport", func(t *testing.T) {
		x := newFixture(t, f, 3)
		x.pipes[0].write(t)
		x.expectOnly(0, "written")
		x.remove(0)
		x.add(0, 0)
		x.expectOnly(0, "re-added under a new tag while holding data")
		x.pipes[0].drain(t)
		x.expectNone("re-added pipe read dry")
	})
}

// checkAddDuplicate: adding a registered descriptor again is an error, and
// leaves the first registration as it was.
func checkAddDuplicate(t *testing.T, f pipebench.Factory) {
	x := newFixture(t, f, 3)
	if err := x.b.Add(x.pipes[0].r, 0); err == nil {
		t.Errorf("adding fd %d a second time (tag 0) succeeded; want an error", x.pipes[0].r)
	}
	x.pipes[0].write(t)
	x.expectOnly(0, "written after a refused duplicate add") // tag 0 is not registered
}

// checkCloseKeepsDescriptors: Close does not close the registered
// descriptors.
func checkCloseKeepsDescriptors(t *testing.T, f pipebench.Factory) {
	x := newFixture(t, f, 3)
	x.pipes[1].write(t)
	x.close()
	for i, p := range x.pipes {
		if !isOpen(p.r) {
			t.Fatalf("pipe %d: read end fd %d closed by the backend's Close", i, p.r)
		}
	}
	if n := x.pipes[1].drain(t); n != 1 {
		t.Errorf("after Close, read %d bytes from a pipe holding 1", n)
	}
}

// checkRegistration: without waiting, adding a registered descriptor again
// and removing one that is not registered are errors, a removed descriptor
// can be added again, the ctl count never goes back, and a second Close
// does nothing.
func checkRegistration(t *testing.T, f pipebench.Factory) {
	x := newFixture(t, f, 3)
	ctl := x.in.CtlCalls()
	if err := x.in.Add(x.pipes[0].r, 0); err == nil {
		t.Errorf("adding fd %d a second time (tag 0) succeeded; want an error", x.pipes[0].r)
	}
	x.remove(1)
	if err := x.in.Remove(x.pipes[1].r, int32(x.tagOf[1])); err == nil {
		t.Errorf("removing fd %d, not registered any more, succeeded; want an error", x.pipes[1].r)
	}
	x.add(1, 1)
	if c := x.in.CtlCalls(); c < ctl {
		t.Errorf("CtlCalls went from %d to %d", ctl, c)
	}
	x.close()
	if err := x.in.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
}
