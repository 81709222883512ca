package fdselect

import (
	"slices"
	"testing"
)

// TestSetArmAndReady: arm hands the kernel a copy of the interest bitmap
// as far as nfds reaches (nil for an empty set), and the scan after a
// pselect6 reports the tags of the descriptors left set in it, in
// descriptor order, across words, and no more of them than ready has room
// for or than the count the call returned.
func TestSetArmAndReady(t *testing.T) {
	if (&set{}).arm() != nil {
		t.Fatal("arm of an empty set: a bitmap, want nil")
	}
	const nfds = 200
	s := set{interest: make([]uint64, 4), work: make([]uint64, 4), tags: make([]int32, 256), nfds: nfds}
	var want []int32
	for _, fd := range []int{0, 1, 63, 64, 65, 100, 127, 129, nfds - 1} {
		s.interest[fd/64] |= 1 << (fd % 64)
		s.tags[fd] = int32(1000 + fd)
		want = append(want, int32(1000+fd))
	}
	s.work[0], s.work[3] = 1<<2, 1<<60 // left over from a call before
	if first := s.arm(); first != &s.work[0] || !slices.Equal(s.work, s.interest) {
		t.Fatalf("arm: work %x (first word %p, want %p), want a copy of %x", s.work, first, &s.work[0], s.interest)
	}
	// What the kernel hands back after finding every registered descriptor
	// ready is the interest bitmap itself.
	for _, room := range []int{0, 1, 3, len(want), 200} {
		for _, n := range []int{0, 1, 5, len(want)} {
			ready := make([]int32, room)
			if got := ready[:s.ready(ready, n)]; !slices.Equal(got, want[:min(room, n)]) {
				t.Errorf("ready(room %d, count %d) = %v, want %v", room, n, got, want[:min(room, n)])
			}
		}
	}
}
