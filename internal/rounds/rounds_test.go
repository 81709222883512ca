package rounds

import (
	"slices"
	"testing"
)

func TestTurned(t *testing.T) {
	for r, want := range [][]int{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 1, 2}} {
		if got := Turned(3, r+1); !slices.Equal(got, want) {
			t.Errorf("round %d: %v, want %v", r+1, got, want)
		}
	}
	if got := Turned(1, 2); !slices.Equal(got, []int{0}) {
		t.Errorf("one thing, round 2: %v", got)
	}
}

// TestShuffled: one round keeps the order; several give every round a
// permutation of its own, the same from the same seed, another from
// another seed.
func TestShuffled(t *testing.T) {
	if got := Shuffled(4, 1, 7); !slices.Equal(got[0], []int{0, 1, 2, 3}) {
		t.Errorf("one round: %v, want the order given", got[0])
	}
	a, b, c := Shuffled(8, 3, 7), Shuffled(8, 3, 7), Shuffled(8, 3, 8)
	for r := range a {
		if !slices.Equal(a[r], b[r]) {
			t.Errorf("round %d: %v then %v from the same seed", r+1, a[r], b[r])
		}
		sorted := slices.Sorted(slices.Values(a[r]))
		if !slices.Equal(sorted, []int{0, 1, 2, 3, 4, 5, 6, 7}) {
			t.Errorf("round %d: %v is not a permutation", r+1, a[r])
		}
	}
	if slices.Equal(a[0], a[1]) && slices.Equal(a[1], a[2]) {
		t.Errorf("every round in the same order %v", a[0])
	}
	if slices.Equal(a[0], c[0]) && slices.Equal(a[1], c[1]) {
		t.Errorf("seeds 7 and 8 give the same orders %v %v", a, c)
	}
}
