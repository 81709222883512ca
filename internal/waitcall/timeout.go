package waitcall

import (
	"errors"
	"math"
	"time"
)

// ErrNoRoom is returned by a Wait given an empty ready slice: it could
// report nothing, so it must not block either.
var ErrNoRoom = errors.New("wait: ready slice has no room")

// Millis turns a Mechanism timeout into the int milliseconds of poll(2) and
// epoll_wait(2): -1 for a negative timeout (block), 0 for zero, and a
// positive timeout rounded up, never down, so that a 100µs wait does not
// become a busy poll. Timeouts beyond what an int32 of milliseconds holds
// (about 24 days) are capped there.
func Millis(d time.Duration) int {
	switch {
	case d < 0:
		return -1
	case d == 0:
		return 0
	case d >= math.MaxInt32*time.Millisecond:
		return math.MaxInt32
	}
	return int((d + time.Millisecond - 1) / time.Millisecond)
}
