package pipebenchtest

import (
	"testing"
	"time"

	"github.com/pipebench/pipebench/pipebench"
)

// checkNothingWritten: with nothing written, a non-blocking Wait reports
// nothing, and a timed Wait reports nothing and lasts at least its timeout.
func checkNothingWritten(t *testing.T, f pipebench.Factory) {
	t.Run("NonBlocking", func(t *testing.T) {
		x := newFixture(t, f, 4)
		x.expectNone("nothing written")
	})
	t.Run("Timeout", func(t *testing.T) {
		const timeout = 30 * time.Millisecond
		x := newFixture(t, f, 4)
		start := time.Now()
		got := x.wait(timeout)
		took := time.Since(start)
		if len(got) != 0 {
			t.Fatalf("nothing written: wait reported %s", x.describe(got))
		}
		if took < timeout {
			t.Errorf("wait with timeout %v returned empty after %v: before its timeout", timeout, took)
		}
		if took > hangGuard {
			t.Errorf("wait with timeout %v took %v", timeout, took)
		}
	})
}

// checkOneWritten: a written pipe is reported by exactly its tag, alone.
func checkOneWritten(t *testing.T, f pipebench.Factory) {
	x := newFixture(t, f, 5)
	x.pipes[1].write(t)
	x.expectOnly(1, "one pipe written")
}

// checkReadDry: a pipe read dry is no longer reported, and new data makes it
// reported again. Unread, it is reported again by a level-triggered backend
// and not by an edge-triggered one.
func checkReadDry(t *testing.T, f pipebench.Factory) {
	x := newFixture(t, f, 4)
	p := x.pipes[2]
	p.write(t)
	x.expectOnly(2, "written")
	if f.Features.Has(pipebench.EdgeTriggered) {
		x.expectNone("edge-triggered, no new data since it was reported")
	} else {
		x.expectOnly(2, "reported, not read, level-triggered")
	}
	if n := p.drain(t); n != 1 {
		t.Fatalf("read %d bytes from a pipe holding 1", n)
	}
	x.expectNone("read dry")
	p.write(t)
	x.expectOnly(2, "written again after being read dry")
}

// checkSeveralWritten: several written pipes are all reported, and nothing
// else.
func checkSeveralWritten(t *testing.T, f pipebench.Factory) {
	x := newFixture(t, f, 8)
	want := []int{0, 3, 4, 7}
	for _, i := range want {
		x.pipes[i].write(t)
	}
	x.collect(want...)
	x.expectNone("all written pipes read dry")
}

// checkEndOfFile: a pipe whose write end is closed is readable (end of
// file), with or without data before it; end of file persists, so a
// level-triggered backend reports it again.
func checkEndOfFile(t *testing.T, f pipebench.Factory) {
	x := newFixture(t, f, 3)
	x.pipes[1].closeWrite(t)
	x.collect(1)
	x.remove(1) // it would be reported forever
	x.expectNone("the pipe at end of file removed")

	x.pipes[2].write(t)
	x.pipes[2].closeWrite(t)
	x.collect(2)
	if !f.Features.Has(pipebench.EdgeTriggered) {
		x.expectOnly(2, "at end of file, level-triggered")
	}
}
