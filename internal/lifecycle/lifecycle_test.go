package lifecycle

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestEndingKeepsTheFirstFailure: of many concurrent failures one is kept,
// the first End's function runs once, and Done is closed.
func TestEndingKeepsTheFirstFailure(t *testing.T) {
	var h Ending
	done := h.Done()
	first := errors.New("first")
	h.Fail(first)
	var wg sync.WaitGroup
	ran := 0
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.Fail(fmt.Errorf("later %d", i))
			h.End(func() { ran++ })
		}()
	}
	wg.Wait()
	select {
	case <-done:
	default:
		t.Fatal("Done not closed after Fail")
	}
	if h.Err() != first {
		t.Errorf("Err = %v, want the first failure", h.Err())
	}
	if ran != 0 {
		t.Errorf("End's function ran %d times after the end, want 0", ran)
	}
	better := errors.New("the cause")
	h.Replace(better)
	if h.Err() != better {
		t.Errorf("Err after Replace = %v", h.Err())
	}
}

// TestEndingEndRunsFirstOnce: the first End runs its function before Done
// closes, and ends without a failure.
func TestEndingEndRunsFirstOnce(t *testing.T) {
	var h Ending
	ran := 0
	for range 3 {
		h.End(func() {
			select {
			case <-h.done:
				t.Error("Done closed before End's function ran")
			default:
			}
			ran++
		})
	}
	if ran != 1 || h.Err() != nil {
		t.Errorf("End's function ran %d times (want 1), Err %v (want nil)", ran, h.Err())
	}
	<-h.Done()
}

func TestClock(t *testing.T) {
	const every = 5 * time.Millisecond
	closed := make(chan struct{})
	close(closed)
	cases := []struct {
		name         string
		c            Clock
		stop, ending <-chan struct{}
		progress     bool
		stopAt       int // tick k that says not to go on; 0: none
		want         End
		ticks        int // exactly; -1: at least 1
	}{
		{"over", Clock{Every: every, For: 6 * every, StallAfter: time.Hour}, nil, nil, true, 0, Over, 6},
		{"stalled", Clock{Every: every, StallAfter: 4 * every}, nil, nil, false, 0, Stalled, -1},
		{"interrupted", Clock{Every: every}, closed, nil, true, 0, Interrupted, 0},
		{"halted", Clock{Every: every}, nil, closed, true, 0, Ended, 0},
		{"tick-halts", Clock{Every: every}, nil, nil, true, 3, Ended, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.c.Start = time.Now()
			ticks := 0
			end, idle := c.c.Run(c.stop, c.ending, nil, func(k int, now time.Time) (bool, bool) {
				ticks++
				if k != ticks {
					t.Errorf("tick %d numbered %d", ticks, k)
				}
				if b := c.c.Start.Add(time.Duration(k) * c.c.Every); now.Before(b) {
					t.Errorf("tick %d at %v, before its boundary %v", k, now, b)
				}
				return c.progress, k != c.stopAt
			})
			if end != c.want {
				t.Errorf("ended %d, want %d", end, c.want)
			}
			if c.ticks >= 0 && ticks != c.ticks || c.ticks < 0 && ticks < 1 {
				t.Errorf("%d ticks, want %d", ticks, c.ticks)
			}
			if end == Stalled && idle < c.c.StallAfter {
				t.Errorf("stalled after %v idle, less than StallAfter %v", idle, c.c.StallAfter)
			}
		})
	}
}
