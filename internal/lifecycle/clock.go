package lifecycle

import "time"

// Clock is the clock of a measurement's intervals: a boundary every Every
// from Start, for For (0: until told to stop), and a stall when StallAfter
// passes without progress (0: never).
type Clock struct {
	Start      time.Time
	Every      time.Duration
	For        time.Duration
	StallAfter time.Duration
}

// End is why Clock.Run returned.
type End int

const (
	Over        End = iota // For has passed
	Interrupted            // stop was closed
	Ended                  // ending or done was closed, or tick said not to go on
	Stalled                // StallAfter passed without progress
)

// Run calls tick at every boundary Start + k·Every, k from 1, with the
// time it woke, until the clock ends (End says why; idle is how long
// nothing progressed, for Stalled). tick reports whether the interval made
// progress and whether to go on. stop, ending and done may be nil. Each
// boundary is timed from Start, so that a late wake-up does not delay the
// next.
func (c Clock) Run(stop, ending, done <-chan struct{}, tick func(k int, now time.Time) (progressed, goOn bool)) (end End, idle time.Duration) {
	lastProgress := c.Start
	timer := time.NewTimer(c.Every)
	defer timer.Stop()
	for k := 1; ; k++ {
		select {
		case <-timer.C:
		case <-stop:
			return Interrupted, 0
		case <-ending:
			return Ended, 0
		case <-done:
			return Ended, 0
		}
		now := time.Now()
		progressed, goOn := tick(k, now)
		if !goOn {
			return Ended, 0
		}
		if progressed {
			lastProgress = now
		} else if idle := now.Sub(lastProgress); c.StallAfter > 0 && idle >= c.StallAfter {
			return Stalled, idle
		}
		if c.For > 0 && time.Duration(k)*c.Every >= c.For {
			return Over, 0
		}
		timer.Reset(c.Start.Add(time.Duration(k+1) * c.Every).Sub(time.Now()))
	}
}
