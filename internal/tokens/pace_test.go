package tokens

import (
	"encoding/binary"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestPaceArithmetic holds the schedule to its definition: token n of the
// schedule is due at T0 + (n+1)/Rate, writer Index of Writers owns every
// Writers-th token from Index, DueBy counts exactly the tokens Due puts
// at or before a time, and the tick is a token's period or MinTick.
func TestPaceArithmetic(t *testing.T) {
	const t0 = 5_000_000
	one := NewPace(Schedule{T0: t0, Rate: 1e6}, 0, 1) // a token every µs
	for k, want := range map[uint64]int64{0: t0 + 1000, 1: t0 + 2000, 7: t0 + 8000, 1e9: t0 + 1e12 + 1000} {
		if got := one.Due(k); got != want {
			t.Errorf("rate 1M: token %d due at %d, want %d", k, got, want)
		}
	}
	second := NewPace(Schedule{T0: t0, Rate: 1e6}, 1, 3) // tokens 1, 4, 7, ...
	for k, want := range map[uint64]int64{0: t0 + 2000, 1: t0 + 5000, 2: t0 + 8000} {
		if got := second.Due(k); got != want {
			t.Errorf("writer 1 of 3: its token %d due at %d, want %d", k, got, want)
		}
	}
	odd := NewPace(Schedule{T0: t0, Rate: 3e6}, 2, 5) // a period of 333.3 ns
	for _, p := range []*Pace{one, second, odd} {
		for _, dt := range []int64{-1, 0, 1, 999, 1000, 1001, 3999, 4000, 12345, 1e7 + 17} {
			var want uint64
			for k := uint64(0); p.Due(k) <= t0+dt; k++ {
				want++
			}
			if got := p.DueBy(t0 + dt); got != want {
				t.Errorf("writer %d of %d at %v/s: %d tokens due %d ns after T0, want %d", p.Index, p.Writers, p.Rate, got, dt, want)
			}
		}
	}
	for _, c := range []struct {
		rate     float64
		writers  int
		tick     time.Duration
		perTick  float64
		describe string
	}{
		{1e6, 1, MinTick, 50, "faster than a token per MinTick: MinTick, several tokens a tick"},
		{4e6, 2, MinTick, 100, "each of 2 writers at 2M/s"},
		{1000, 1, time.Millisecond, 1, "slower: a token a tick"},
		{1000, 4, 4 * time.Millisecond, 1, "each of 4 writers at 250/s"},
		{1 / 3.0, 1, 3 * time.Second, 1, "a token every 3 s"},
	} {
		p := NewPace(Schedule{Rate: c.rate}, 0, c.writers)
		if got, gotPer := p.Tick(), p.TokensPerTick(); got != c.tick || gotPer < c.perTick*(1-1e-9) || gotPer > c.perTick*(1+1e-9) {
			t.Errorf("%s: tick %v with %v tokens, want %v with %v", c.describe, got, gotPer, c.tick, c.perTick)
		}
	}
}

// TestPaceWake: the writer sleeps until its next token is due, but no
// sooner than MinTick after it woke (a token a full pipe left due waits
// that long) and no longer than MaxSleep.
func TestPaceWake(t *testing.T) {
	const now = 1_000_000_000
	slow := NewPace(Schedule{T0: now, Rate: 1000}, 0, 1)   // a token every ms
	fast := NewPace(Schedule{T0: now, Rate: 1e6}, 0, 1)    // every µs
	glacial := NewPace(Schedule{T0: now, Rate: 0.5}, 0, 1) // every 2 s
	for _, c := range []struct {
		what string
		p    *Pace
		sent uint64
		now  int64
		want int64
	}{
		{"next token due in 1 ms", slow, 0, now, now + int64(time.Millisecond)},
		{"the one after", slow, 1, now + int64(time.Millisecond), now + int64(2*time.Millisecond)},
		{"next token due within MinTick", fast, 1, now, now + int64(MinTick)},
		{"a token left due (full pipe)", slow, 0, now + int64(5*time.Millisecond), now + int64(5*time.Millisecond+MinTick)},
		{"next token beyond MaxSleep", glacial, 0, now, now + int64(MaxSleep)},
	} {
		if got := c.p.wake(c.sent, c.now); got != c.want {
			t.Errorf("%s: wakes %d ns after the clock's %d, want %d", c.what, got-c.now, c.now, c.want-c.now)
		}
	}
}

// TestPacedTick runs the writer's tick with a fake clock on a real pipe: a
// tick writes every token due by its time, each stamped with its
// scheduled time (not the time of its write); a late tick writes all that
// came due since; a full pipe leaves the rest due, and a later tick writes
// them, stamps in schedule order, none lost.
func TestPacedTick(t *testing.T) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	// One page: 512 stamps fit.
	if _, err := unix.FcntlInt(uintptr(p[1]), unix.F_SETPIPE_SZ, 4096); err != nil {
		t.Fatal(err)
	}
	const t0, period = 1_000_000, 1000 // a token every µs
	var stop atomic.Bool
	w := &Writer{WFDs: []int32{int32(p[1])}, Route: NewRouter(RouteNext, 1, 1), Stop: &stop, Format: Stamp,
		Pace: NewPace(Schedule{T0: t0, Rate: 1e9 / period}, 0, 1)}
	var next uint64 // the token whose stamp the pipe holds next
	readStamps := func(want uint64) {
		t.Helper()
		buf := make([]byte, 8*1024)
		var got uint64
		for {
			n, e := Read(int32(p[0]), buf).Split()
			if e == unix.EAGAIN {
				break
			}
			if e != 0 {
				t.Fatal(e)
			}
			for b := buf[:n]; len(b) >= 8; b = b[8:] {
				if s, due := int64(binary.LittleEndian.Uint64(b)), w.Pace.Due(next); s != due {
					t.Fatalf("token %d carries %d, want its scheduled time %d", next, s, due)
				}
				next++
				got++
			}
		}
		if got != want {
			t.Fatalf("read %d tokens, want %d", got, want)
		}
	}
	tick := func(now int64) {
		t.Helper()
		if err := w.tick(now, w.fixedToken()); err != nil {
			t.Fatal(err)
		}
	}
	tick(t0 + period - 1) // before the first token, due a period after T0
	readStamps(0)
	tick(t0 + 10*period + period/2) // tokens 0 to 9
	readStamps(10)
	tick(t0 + 10*period + period/2) // the same time again: nothing new
	readStamps(0)
	tick(t0 + 110*period) // a late tick: tokens 10 to 109
	readStamps(100)
	if c := w.Counts; c.Sent != 110 || c.Writes != 110 || c.Full != 0 || c.MaxBacklog != 100 {
		t.Fatalf("counts %+v, want 110 sent in 110 writes, none full, at most 100 due at a tick", c)
	}
	tick(t0 + 1110*period) // 1000 due; the pipe holds 512
	if c := w.Counts; c.Sent != 110+512 || c.Full != 1 || c.Writes != 110+513 || c.MaxBacklog != 1000 {
		t.Fatalf("counts %+v after a tick that filled the pipe, want 622 sent, 1 write full, backlog 1000", c)
	}
	readStamps(512)
	tick(t0 + 1110*period) // the 488 left due
	readStamps(488)
	if c := w.Counts; c.Sent != 1110 || c.Sent != w.Pace.DueBy(t0+1110*period) {
		t.Errorf("sent %d, due %d: want every token due sent", c.Sent, w.Pace.DueBy(t0+1110*period))
	}
	stop.Store(true)
	tick(t0 + 2000*period)
	readStamps(0)
}
