package waitcall

import (
	"time"

	"golang.org/x/sys/unix"
)

// RetryEINTR calls wait with timeout and, for as long as it fails with
// EINTR, calls it again with the time that remains, so that a signal never
// reaches the caller of Mechanism.Wait. A timeout < 0 is passed on unchanged;
// once a positive timeout has run out it returns 0, nil as if the wait had
// timed out.
//
// The clock is read only after the first EINTR, never on the ordinary path.
// The time spent in the interrupted first call is therefore not subtracted:
// an interrupted wait may last up to one extra timeout, never less than
// asked, which is what the Mechanism contract allows ("never less").
//
// wait should be a method value or closure; RetryEINTR does not keep it, so
// the compiler leaves it on the caller's stack and nothing is allocated.
func RetryEINTR(timeout time.Duration, wait func(time.Duration) (int, error)) (int, error) {
	n, err := wait(timeout)
	if err != unix.EINTR { // x/sys returns the bare Errno: no unwrapping needed
		return n, err
	}
	return retry(timeout, wait)
}

// retry is the slow path of RetryEINTR, kept apart so that the fast path
// stays small enough to inline.
func retry(timeout time.Duration, wait func(time.Duration) (int, error)) (int, error) {
	var start time.Time
	for {
		remaining, ok := Interrupted(timeout, &start)
		if !ok {
			return 0, nil
		}
		n, err := wait(remaining)
		if err != unix.EINTR {
			return n, err
		}
	}
}

// Interrupted is what a Wait does each time its call of timeout ends with
// EINTR, for a Wait that makes its call in place rather than through
// RetryEINTR: it returns the timeout to make the call again with, the time
// that remains, and false once a positive timeout has run out (the Wait
// then returns 0, nil, as if its call had timed out). start is the
// caller's, zero before the first EINTR: the clock is read then, never on
// the ordinary path, so an interrupted wait may last up to one extra
// timeout, never less than asked (RetryEINTR). It is kept out of line: its
// prologue, run after every EINTR, is where a goroutine the runtime asked
// to stop (the signal that caused the EINTR) stops.
//
//go:noinline
func Interrupted(timeout time.Duration, start *time.Time) (time.Duration, bool) {
	if timeout <= 0 {
		return timeout, true
	}
	if start.IsZero() {
		*start = time.Now()
		return timeout, true
	}
	remaining := timeout - time.Since(*start)
	return remaining, remaining > 0
}
