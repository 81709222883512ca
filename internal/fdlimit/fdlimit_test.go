package fdlimit

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestOpenFDs: a pipe made is two descriptors more, closed two fewer; the
// limit raised is the hard limit.
func TestOpenFDs(t *testing.T) {
	before, err := OpenFDs()
	if err != nil {
		t.Fatal(err)
	}
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	during, err := OpenFDs()
	unix.Close(p[0])
	unix.Close(p[1])
	if err != nil || during != before+2 {
		t.Errorf("%d descriptors open, %d with a pipe more (%v): want 2 more", before, during, err)
	}
	limit, err := RaiseFileLimit()
	var lim unix.Rlimit
	if err != nil || unix.Getrlimit(unix.RLIMIT_NOFILE, &lim) != nil || limit != lim.Max || lim.Cur != lim.Max {
		t.Errorf("raised to %d (%v); getrlimit says %d of %d", limit, err, lim.Cur, lim.Max)
	}
}
