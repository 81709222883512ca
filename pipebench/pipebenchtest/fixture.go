package pipebenchtest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/pipebench/pipebench/pipebench"
)

// hangGuard bounds every wait the suite expects to end: far above any
// timeout it asks for, so that only a hang trips it.
const hangGuard = 5 * time.Second

// fixture is a backend (a Mechanism or a Loop) with pipes registered
// under known tags. Pipe i is
// registered as tag 2n-1-i: never equal to its index (a backend reporting
// positions instead of tags is caught), and below Options.Pipes = 2n, so
// that tags stay the small integers the contract speaks of. Tags 0..n-1 are
// free for re-registration.
type fixture struct {
	t      *testing.T
	f      pipebench.Factory
	in     pipebench.Interest  // the backend, either kind
	b      pipebench.Mechanism // the backend, when it is a Mechanism (in)
	closed bool
	pipes  []*pipe
	byTag  map[int32]int // registered tag -> pipe index
	tagOf  []int32       // pipe index -> registered tag, -1 if not registered
	buf    []int32
}

// newFixture makes n pipes and registers them with a backend from f.
func newFixture(t *testing.T, f pipebench.Factory, n int) *fixture {
	t.Helper()
	return openFixture(t, f, makePipes(t, n))
}

// openFixture opens a backend from f for pipes, with MaxFD the highest read
// end (sizes are tight, so an off-by-one in a backend shows), and registers
// every pipe.
func openFixture(t *testing.T, f pipebench.Factory, pipes []*pipe) *fixture {
	t.Helper()
	maxFD := 0
	for _, p := range pipes {
		maxFD = max(maxFD, p.r)
	}
	n := len(pipes)
	o := pipebench.Options{Pipes: 2 * n, MaxFD: maxFD}
	var in pipebench.Interest
	var b pipebench.Mechanism
	var err error
	if f.IsLoop() {
		in, err = f.OpenLoop(o)
	} else if b, err = f.Open(o); err == nil {
		in = b
	}
	SkipIfRefused(t, err)
	if err != nil {
		t.Fatalf("%s: open (pipes %d, max fd %d): %v", f.Name, 2*n, maxFD, err)
	}
	x := &fixture{t: t, f: f, in: in, b: b, pipes: pipes, byTag: map[int32]int{},
		tagOf: make([]int32, n), buf: make([]int32, 2*n)}
	t.Cleanup(x.close)
	for i := range pipes {
		x.tagOf[i] = -1
		x.add(i, int32(2*n-1-i))
	}
	return x
}

func (x *fixture) close() {
	if x.closed {
		return
	}
	x.closed = true
	if err := x.in.Close(); err != nil {
		x.t.Errorf("close: %v", err)
	}
}

func (x *fixture) add(i int, tag int32) {
	x.t.Helper()
	if err := x.in.Add(x.pipes[i].r, tag); err != nil {
		x.t.Fatalf("add pipe %d (fd %d, tag %d): %v", i, x.pipes[i].r, tag, err)
	}
	x.byTag[tag] = i
	x.tagOf[i] = tag
}

func (x *fixture) remove(i int) {
	x.t.Helper()
	tag := x.tagOf[i]
	if err := x.in.Remove(x.pipes[i].r, tag); err != nil {
		x.t.Fatalf("remove pipe %d (fd %d, tag %d): %v", i, x.pipes[i].r, tag, err)
	}
	delete(x.byTag, tag)
	x.tagOf[i] = -1
}

// waitInto calls Wait and checks what every Wait must satisfy: no error, a
// count within ready, only registered tags, none twice. It returns the
// indexes of the reported pipes.
func (x *fixture) waitInto(ready []int32, timeout time.Duration) []int {
	x.t.Helper()
	n, err := x.b.Wait(ready, timeout)
	if err != nil {
		x.t.Fatalf("wait (%s): %v", timeoutName(timeout), err)
	}
	return x.reported(ready, n)
}

// reported checks what a readiness call that stored n tags in ready must
// satisfy: a count within ready, only registered tags, none twice. It
// returns the indexes of the reported pipes.
func (x *fixture) reported(ready []int32, n int) []int {
	x.t.Helper()
	if n < 0 || n > len(ready) {
		x.t.Fatalf("wait returned %d with a ready slice of %d", n, len(ready))
	}
	idx := make([]int, n)
	for k, tag := range ready[:n] {
		i, ok := x.byTag[tag]
		if !ok {
			x.t.Fatalf("wait reported tag %d, which is not registered (reported %v)", tag, ready[:n])
		}
		if slices.Contains(idx[:k], i) {
			x.t.Fatalf("wait reported tag %d twice in one call (%v)", tag, ready[:n])
		}
		idx[k] = i
	}
	return idx
}

func (x *fixture) wait(timeout time.Duration) []int {
	x.t.Helper()
	return x.waitInto(x.buf, timeout)
}

// expectOnly waits (up to the hang guard) and requires exactly pipe i, by
// its current tag, in one Wait.
func (x *fixture) expectOnly(i int, why string) {
	x.t.Helper()
	got := x.wait(hangGuard)
	if len(got) != 1 || got[0] != i {
		x.t.Fatalf("%s: wait reported %s, want only %s", why, x.describe(got), x.describe([]int{i}))
	}
}

// expectNone requires a non-blocking Wait to report nothing.
func (x *fixture) expectNone(why string) {
	x.t.Helper()
	if got := x.wait(0); len(got) != 0 {
		x.t.Fatalf("%s: wait reported %s, want nothing", why, x.describe(got))
	}
}

// collect waits until every pipe in want has been reported, reading each
// reported pipe dry; reporting any other pipe, or one already reported and
// read, is a failure, as is not reporting them all within the hang guard.
func (x *fixture) collect(want ...int) {
	x.t.Helper()
	x.collectInto(x.buf, want...)
}

func (x *fixture) collectInto(ready []int32, want ...int) {
	x.t.Helper()
	seen := map[int]bool{}
	deadline := time.Now().Add(hangGuard)
	for len(seen) < len(want) {
		left := time.Until(deadline)
		if left <= 0 {
			x.t.Fatalf("reported %d of %s within %v", len(seen), x.describe(want), hangGuard)
		}
		for _, i := range x.waitInto(ready, left) {
			switch {
			case !slices.Contains(want, i):
				x.t.Fatalf("reported %s, which was not written (want %s)", x.describe([]int{i}), x.describe(want))
			case seen[i]:
				x.t.Fatalf("reported %s again after it was read dry", x.describe([]int{i}))
			}
			seen[i] = true
			x.pipes[i].drain(x.t)
		}
	}
}

// describe names pipes by index, descriptor and tag for failure messages.
func (x *fixture) describe(idx []int) string {
	s := "["
	for k, i := range idx {
		if k > 0 {
			s += " "
		}
		s += fmt.Sprintf("pipe %d (fd %d, tag %d)", i, x.pipes[i].r, x.tagOf[i])
	}
	return s + "]"
}
