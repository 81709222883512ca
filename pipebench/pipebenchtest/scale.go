package pipebenchtest

import (
	"testing"

	"github.com/pipebench/pipebench/pipebench"
)

// checkHighDescriptors: descriptors above FD_SETSIZE (1024), including both
// sides of a 64-bit word boundary, are reported correctly, and removing the
// highest one leaves the others working.
func checkHighDescriptors(t *testing.T, f pipebench.Factory) {
	needDescriptors(t, 4100)
	pipes := makePipes(t, 4)
	for i, min := range []int{1100, 4095, 4096} {
		pipes[i].moveReadEnd(t, min)
	}
	// pipes[3] keeps its low number, so that the set spans from near 0.
	x := openFixture(t, f, pipes)
	for _, i := range []int{2, 1, 0, 3} {
		x.pipes[i].write(t)
		x.collect(i)
		x.expectNone("the one written pipe read dry")
	}
	for _, p := range x.pipes {
		p.write(t)
	}
	x.collect(0, 1, 2, 3)
	x.expectNone("all read dry")

	highest := 2
	x.remove(highest)
	x.pipes[highest].write(t)
	x.pipes[1].write(t)
	x.collect(1)
	x.expectNone("highest descriptor removed, then written")
	x.pipes[highest].drain(t)
	x.add(highest, int32(highest))
	x.pipes[highest].write(t)
	x.collect(highest)
}

// checkManyPipes: among 2000 registered pipes, exactly the written ones are
// reported.
func checkManyPipes(t *testing.T, f pipebench.Factory) {
	const n = 2000
	needDescriptors(t, 2*n+100)
	x := newFixture(t, f, n)
	var want []int
	for i := 0; i < n; i += 97 {
		want = append(want, i)
	}
	want = append(want, n-1)
	for _, i := range want {
		x.pipes[i].write(t)
	}
	x.collect(want...)
	x.expectNone("all written pipes read dry")
}

// checkShortReadySlice: with more pipes ready than the ready slice holds,
// Wait stores at most len(ready) tags and nothing beyond, and the others are
// reported by the following Waits.
func checkShortReadySlice(t *testing.T, f pipebench.Factory) {
	const sentinel = -99
	x := newFixture(t, f, 6)
	want := []int{0, 1, 2, 4, 5}
	for _, i := range want {
		x.pipes[i].write(t)
	}
	buf := make([]int32, 8)
	for i := range buf {
		buf[i] = sentinel
	}
	x.collectInto(buf[:2], want...)
	for i, v := range buf[2:] {
		if v != sentinel {
			t.Fatalf("wait with a ready slice of 2 wrote %d at index %d, beyond it", v, i+2)
		}
	}
	x.expectNone("all written pipes read dry")
}
