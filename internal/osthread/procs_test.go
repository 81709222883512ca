package osthread

import (
	"runtime"
	"testing"
)

// TestLendPs: loans add up while they overlap, and GOMAXPROCS returns to
// its first value once every loan is given back, in any order and however
// often release is called.
func TestLendPs(t *testing.T) {
	base := runtime.GOMAXPROCS(0)
	got, releaseA := LendPs(2)
	if got != base+2 || runtime.GOMAXPROCS(0) != base+2 {
		t.Fatalf("first loan of 2: LendPs says %d, GOMAXPROCS %d; want %d", got, runtime.GOMAXPROCS(0), base+2)
	}
	got, releaseB := LendPs(3)
	if got != base+5 || runtime.GOMAXPROCS(0) != base+5 {
		t.Fatalf("second loan of 3: LendPs says %d, GOMAXPROCS %d; want %d", got, runtime.GOMAXPROCS(0), base+5)
	}
	releaseA()
	releaseA()
	if n := runtime.GOMAXPROCS(0); n != base+3 {
		t.Fatalf("first loan given back (twice): GOMAXPROCS %d, want %d", n, base+3)
	}
	releaseB()
	if n := runtime.GOMAXPROCS(0); n != base {
		t.Fatalf("every loan given back: GOMAXPROCS %d, want %d", n, base)
	}
}
