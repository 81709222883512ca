package fdlimit

import (
	"testing"
	"time"

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

// TestBudget: the budget counts what is open, the Go runtime's own
// descriptors included (opening them is Budget's business: a timer armed
// after it opens nothing), under the hard limit.
func TestBudget(t *testing.T) {
	limit, base, err := Budget()
	if err != nil {
		t.Fatal(err)
	}
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil || limit != lim.Max || lim.Cur != lim.Max {
		t.Errorf("limit %d (%v); getrlimit says %d of %d", limit, err, lim.Cur, lim.Max)
	}
	time.Sleep(time.Nanosecond)
	if now, err := OpenFDs(); err != nil || now != base {
		t.Errorf("budget counted %d descriptors, %d open after a timer (%v): want the same", base, now, err)
	}
}
