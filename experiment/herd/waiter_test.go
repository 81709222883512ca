package herd

import (
	"encoding/binary"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/internal/tokens"
	"github.com/pipebench/pipebench/pipebench"
)

// fixture is a waiter over n pipes with a stop pipe and a credit pipe.
type fixture struct {
	rfds, wfds   []int32
	stopR, stopW int32
	cr, cw       int32
	b            *sharedCounts
	w            *waiter
}

func newFixture(t *testing.T, n int, exclusive bool) *fixture {
	t.Helper()
	f := &fixture{}
	pipe := func() (int32, int32) {
		var p [2]int
		if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { unix.Close(p[0]); unix.Close(p[1]) })
		return int32(p[0]), int32(p[1])
	}
	for range n {
		r, w := pipe()
		f.rfds, f.wfds = append(f.rfds, r), append(f.wfds, w)
	}
	f.stopR, f.stopW = pipe()
	var err error
	if f.cr, f.cw, err = tokens.NewCreditPipe(false, pipebench.MaxInFlight); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(int(f.cr)); unix.Close(int(f.cw)) })
	if f.b, err = newSharedCounts(1); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.b.close)
	if f.w, err = newWaiter(f.rfds, f.stopR, f.cw, exclusive, 100*time.Millisecond, &f.b.waiters[0]); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.w.close)
	return f
}

var zeros [64]byte

func (f *fixture) write(t *testing.T, fd int32, n int) {
	t.Helper()
	if _, err := unix.Write(int(fd), zeros[:n]); err != nil {
		t.Fatal(err)
	}
}

func TestLoopCounts(t *testing.T) {
	for _, exclusive := range []bool{false, true} {
		t.Run(OnOff(exclusive), func(t *testing.T) {
			f := newFixture(t, 4, exclusive)
			f.write(t, f.wfds[0], 1)
			f.write(t, f.wfds[2], 3)
			f.write(t, f.stopW, 1)
			if err := f.w.loop(); err != nil {
				t.Fatal(err)
			}
			got := f.w.counts.counts()
			want := Counts{Waits: 1, Returns: 1, Events: 2, Tokens: 4, Credits: 1}
			if got != want {
				t.Errorf("counts %+v, want %+v", got, want)
			}
			var buf [16]byte
			n, err := unix.Read(int(f.cr), buf[:])
			if err != nil || n != 8 || binary.LittleEndian.Uint64(buf[:]) != 4 {
				t.Errorf("credit pipe holds %d bytes %x (%v), want one word of 4 tokens", n, buf[:max(n, 0)], err)
			}
		})
	}
}

func TestLoopAllocatesNothing(t *testing.T) {
	f := newFixture(t, 8, false)
	f.write(t, f.stopW, 1)
	allocs := testing.AllocsPerRun(100, func() {
		f.write(t, f.wfds[3], 1)
		if err := f.w.loop(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("the waiter's loop allocated %v times per run", allocs)
	}
}
