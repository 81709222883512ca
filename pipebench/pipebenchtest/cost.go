package pipebenchtest

import (
	"runtime"
	"testing"
	"time"

	"github.com/pipebench/pipebench/pipebench"
	"golang.org/x/sys/unix"
)

// checkWaitDoesNotAllocate: Wait is the hot loop and allocates nothing,
// whether something is ready, nothing is, or new data arrives before every
// call (which makes a one-shot backend re-arm each time).
func checkWaitDoesNotAllocate(t *testing.T, f pipebench.Factory) {
	x := newFixture(t, f, 3)
	p := x.pipes[1]
	var buf [1024]byte
	var n int
	var err error
	for _, c := range []struct {
		name  string
		setup func(*testing.T)
		wait  func()
		want  int // tags each call must report, or -1 for any count
	}{
		{"NothingReady", func(*testing.T) {}, func() { n, err = x.b.Wait(x.buf, 0) }, 0},
		// An edge-triggered backend reports the ready pipe once, then nothing.
		{"OneReady", func(t *testing.T) { p.write(t) }, func() { n, err = x.b.Wait(x.buf, 0) }, -1},
		{"NewDataEachCall", func(*testing.T) {}, func() {
			unix.Read(p.r, buf[:])
			unix.Write(p.w, token)
			n, err = x.b.Wait(x.buf, hangGuard)
		}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.setup(t)
			check := func() {
				t.Helper()
				if err != nil {
					t.Fatalf("wait: %v", err)
				}
				if c.want >= 0 && n != c.want {
					t.Fatalf("wait reported %d tags, want %d", n, c.want)
				}
			}
			c.wait() // warm up, and fail fast rather than time out 100 times
			check()
			if allocs := testing.AllocsPerRun(100, c.wait); allocs != 0 {
				t.Errorf("wait allocated %v times per call", allocs)
			}
			check()
		})
	}
}

// checkWaitSyscalls: WaitSyscalls counts the mechanism's system calls, as
// strace would: a Wait that finds nothing ready and may not block makes
// one (another only after EINTR, which nothing here provokes often), and
// the count never decreases; a Wait that blocks until a write makes at
// least one.
func checkWaitSyscalls(t *testing.T, f pipebench.Factory) {
	x := newFixture(t, f, 3)
	x.expectNone("nothing written") // a backend may arm here (io_uring)
	const n = 20
	before := x.b.WaitSyscalls()
	for range n {
		x.expectNone("nothing written")
	}
	if got := x.b.WaitSyscalls() - before; got < n || got >= 2*n {
		t.Errorf("%d waits that found nothing and did not block made %d wait system calls, want one each", n, got)
	}
	before = x.b.WaitSyscalls()
	p := x.pipes[1]
	go func() {
		time.Sleep(20 * time.Millisecond)
		unix.Write(p.w, token)
	}()
	x.collect(1)
	if after := x.b.WaitSyscalls(); after <= before {
		t.Errorf("a wait that blocked until a write made no wait system call (WaitSyscalls %d, then %d)", before, after)
	}
}

// checkArm: a backend that declares itself an Armer hands its registrations
// to the kernel in Arm, counted by WaitSyscalls and CtlCalls there, so that
// the Wait after it submits none; a pipe written before Arm, and one
// written after, are reported.
func checkArm(t *testing.T, f pipebench.Factory) {
	x := newFixture(t, f, 3)
	a, ok := x.b.(pipebench.Armer)
	if !ok {
		t.Skipf("%s is not a pipebench.Armer", f.Name)
	}
	x.pipes[0].write(t)
	sys, ctl := x.b.WaitSyscalls(), x.b.CtlCalls()
	if err := a.Arm(); err != nil {
		t.Fatalf("arm: %v", err)
	}
	if got := x.b.WaitSyscalls() - sys; got == 0 {
		t.Error("Arm made no system call: the registrations were not handed to the kernel")
	}
	if got := x.b.CtlCalls() - ctl; got != 3 {
		t.Errorf("Arm made %d interest changes for 3 registrations", got)
	}
	ctl = x.b.CtlCalls()
	x.expectOnly(0, "written before Arm")
	x.pipes[0].drain(t)
	x.pipes[2].write(t)
	x.collect(2)
	if f.Features.Has(pipebench.OneShot) {
		return // re-arms its reported pipes: ctl calls
	}
	if got := x.b.CtlCalls() - ctl; got != 0 {
		t.Errorf("waits after Arm made %d interest changes; Arm had made them all", got)
	}
}

// checkCtlCalls: CtlCalls never decreases, may be read from another
// goroutine while the backend works, and grows when a one-shot backend
// re-arms a descriptor.
func checkCtlCalls(t *testing.T, f pipebench.Factory) {
	x := newFixture(t, f, 3)
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		var prev uint64
		for {
			select {
			case <-quit:
				return
			default:
			}
			c := x.b.CtlCalls()
			if c < prev {
				t.Errorf("CtlCalls went from %d to %d (read from another goroutine)", prev, c)
				return
			}
			prev = c
			runtime.Gosched()
			time.Sleep(50 * time.Microsecond)
		}
	}()
	defer func() {
		close(quit)
		<-done
	}()

	last := x.b.CtlCalls()
	check := func(after string) uint64 {
		t.Helper()
		c := x.b.CtlCalls()
		if c < last {
			t.Fatalf("CtlCalls went from %d to %d after %s", last, c, after)
		}
		last = c
		return c
	}
	x.remove(0)
	check("remove")
	x.add(0, 0)
	check("add")
	x.pipes[1].write(t)
	x.collect(1)
	check("a wait")
	x.expectNone("read dry")
	check("an empty wait")

	if f.Features.Has(pipebench.OneShot) {
		x.pipes[2].write(t)
		x.expectOnly(2, "written")
		before := check("a report")
		x.pipes[2].drain(t)
		x.pipes[2].write(t)
		x.expectOnly(2, "read dry and written again")
		if after := check("a re-arm"); after <= before {
			t.Errorf("one-shot backend reported a pipe again without a ctl call to re-arm it (CtlCalls %d, then %d)", before, after)
		}
	}
}
