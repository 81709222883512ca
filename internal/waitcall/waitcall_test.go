package waitcall

import (
	"errors"
	"math"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestMillis(t *testing.T) {
	for _, c := range []struct {
		in   time.Duration
		want int
	}{
		{-time.Nanosecond, -1},
		{-time.Hour, -1},
		{0, 0},
		{time.Nanosecond, 1},
		{999 * time.Microsecond, 1},
		{time.Millisecond, 1},
		{time.Millisecond + time.Nanosecond, 2},
		{30 * time.Millisecond, 30},
		{1500 * time.Microsecond, 2},
		{math.MaxInt32 * time.Millisecond, math.MaxInt32},
		{math.MaxInt64, math.MaxInt32},
	} {
		if got := Millis(c.in); got != c.want {
			t.Errorf("Millis(%v) = %d, want %d", c.in, got, c.want)
		}
	}
}

func TestRetryEINTR(t *testing.T) {
	t.Run("PassesThrough", func(t *testing.T) {
		calls := 0
		n, err := RetryEINTR(time.Second, func(d time.Duration) (int, error) {
			calls++
			if d != time.Second {
				t.Errorf("first call got timeout %v, want 1s", d)
			}
			return 3, nil
		})
		if n != 3 || err != nil || calls != 1 {
			t.Errorf("got n=%d err=%v after %d calls, want 3, nil, 1 call", n, err, calls)
		}
	})
	t.Run("OtherErrorNotRetried", func(t *testing.T) {
		calls := 0
		_, err := RetryEINTR(-1, func(time.Duration) (int, error) {
			calls++
			return 0, unix.EBADF
		})
		if !errors.Is(err, unix.EBADF) || calls != 1 {
			t.Errorf("got err=%v after %d calls, want EBADF after 1", err, calls)
		}
	})
	t.Run("BlockingRetriedWithNegative", func(t *testing.T) {
		calls := 0
		n, err := RetryEINTR(-1, func(d time.Duration) (int, error) {
			calls++
			if d >= 0 {
				t.Errorf("call %d got timeout %v, want negative", calls, d)
			}
			if calls < 4 {
				return 0, unix.EINTR
			}
			return 1, nil
		})
		if n != 1 || err != nil || calls != 4 {
			t.Errorf("got n=%d err=%v after %d calls, want 1, nil, 4 calls", n, err, calls)
		}
	})
	t.Run("ZeroRetriedWithZero", func(t *testing.T) {
		calls := 0
		n, err := RetryEINTR(0, func(d time.Duration) (int, error) {
			calls++
			if d != 0 {
				t.Errorf("call %d got timeout %v, want 0", calls, d)
			}
			if calls < 2 {
				return 0, unix.EINTR
			}
			return 0, nil
		})
		if n != 0 || err != nil || calls != 2 {
			t.Errorf("got n=%d err=%v after %d calls, want 0, nil, 2 calls", n, err, calls)
		}
	})
	t.Run("RemainingShrinksThenTimesOut", func(t *testing.T) {
		const timeout = 20 * time.Millisecond
		var last time.Duration = timeout
		calls := 0
		n, err := RetryEINTR(timeout, func(d time.Duration) (int, error) {
			calls++
			if d <= 0 || d > last {
				t.Errorf("call %d got timeout %v, want in (0, %v]", calls, d, last)
			}
			last = d
			time.Sleep(2 * time.Millisecond)
			return 0, unix.EINTR
		})
		if n != 0 || err != nil {
			t.Errorf("got n=%d err=%v, want 0, nil once the time ran out", n, err)
		}
		if calls < 2 {
			t.Errorf("only %d calls, want retries", calls)
		}
	})
}

// TestInterrupted: the timeout a Wait that makes its call in place retries
// with after EINTR, the clock started by the first.
func TestInterrupted(t *testing.T) {
	var start time.Time
	if d, ok := Interrupted(-1, &start); d != -1 || !ok || !start.IsZero() {
		t.Errorf("negative timeout: %v, %v, start %v; want -1, true, the clock not read", d, ok, start)
	}
	if d, ok := Interrupted(0, &start); d != 0 || !ok || !start.IsZero() {
		t.Errorf("zero timeout: %v, %v, start %v; want 0, true, the clock not read", d, ok, start)
	}
	const timeout = 20 * time.Millisecond
	if d, ok := Interrupted(timeout, &start); d != timeout || !ok || start.IsZero() {
		t.Errorf("first EINTR: %v, %v, start %v; want the whole %v, true, the clock read", d, ok, start, timeout)
	}
	time.Sleep(time.Millisecond)
	if d, ok := Interrupted(timeout, &start); d >= timeout || d <= 0 || !ok {
		t.Errorf("second EINTR after 1ms: %v, %v; want less than %v, true", d, ok, timeout)
	}
	time.Sleep(timeout)
	if d, ok := Interrupted(timeout, &start); ok {
		t.Errorf("EINTR after the timeout ran out: %v, true; want false", d)
	}
}

func TestGrow(t *testing.T) {
	s := Grow[int32](nil, 3, -1)
	if len(s) != 4 {
		t.Fatalf("len = %d, want 4", len(s))
	}
	s[2] = 7
	s = Grow(s, 2, -1)
	if len(s) != 4 {
		t.Fatalf("Grow within bounds changed len to %d", len(s))
	}
	s = Grow(s, 5, -1)
	if len(s) < 6 || s[2] != 7 || s[0] != -1 || s[5] != -1 {
		t.Fatalf("Grow lost or misfilled entries: %v", s)
	}
}
