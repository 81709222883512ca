package tokens

import (
	"fmt"
	"math"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// An open-loop writer (Writer.Pace) sends tokens on a schedule fixed
// before the window opens, whatever the reader does: token n (from 0) is
// due at T0 + (n+1)/Rate, and is written at the first tick at or after
// that time. The first is due a period after T0, so that a window of W
// seconds from T0 has W·Rate tokens due, whole. A token carries its due
// time, not the time of its write (a Stamp in latency mode), so that the
// reader's figure is the time from the token's scheduled send to its
// read, free of coordinated omission (Gil Tene's term: a writer that
// waits for the system it measures leaves out the very delays it should
// count; wrk2 and HdrHistogram measure from the schedule, as here).
//
// The tick: the writer sleeps in clock_nanosleep(CLOCK_MONOTONIC,
// TIMER_ABSTIME) until its next token is due, but no sooner than MinTick
// after its last wake-up; it then reads the clock once and writes every
// token due by then. A tick is one token's period, or MinTick where
// tokens come faster (Pace.Tick), so that it writes at least a token a
// tick and sleeps at most every MinTick. It sleeps no longer than
// MaxSleep at once, so that it sees the window close within that.
//
// A write that finds its pipe full (EAGAIN) is not lost: the token stays
// due and the tick ends; the next tick writes it to the next pipe the
// route picks. Tokens due and not yet written are the writer's backlog:
// WriterCounts.MaxBacklog keeps the most it found when it woke (about a
// tick's tokens while it keeps up).

// MinTick is the shortest time between two of a paced writer's
// wake-ups: where tokens are due faster, a tick writes several.
const MinTick = 50 * time.Microsecond

// MaxSleep is the longest a paced writer sleeps at once, whatever its
// rate: it looks at the stop flag at least that often.
const MaxSleep = 100 * time.Millisecond

// SpinBelow is the shortest wait a paced writer sleeps through; a shorter
// one it waits out reading the clock. A sleep costs the thread a switch
// out and back and its timer's interrupt, about as much CPU as this on
// the VMs here, so that near its writer's capacity (a wait of a few
// microseconds a tick) a writer that slept each tick fell behind a
// schedule it could write: the spin spends no more CPU than the sleep
// would, and an idle CPU at a low rate stays idle.
const SpinBelow = 20 * time.Microsecond

// Schedule is an open-loop schedule, fixed before the window opens:
// token n, counted from 0 over every writer of the run, is due at
// T0 + (n+1)/Rate seconds. T0 is on the runtime's monotonic clock
// (Nanotime), the same in every process.
type Schedule struct {
	T0   int64   `json:"t0_ns"`
	Rate float64 `json:"rate"` // tokens per second, every writer's together
}

// Pace is one writer's share of a Schedule: writer Index of Writers sends
// the schedule's tokens Index, Index+Writers, Index+2·Writers, ..., so
// that the writers' tokens together are the schedule's, each at Rate/Writers.
type Pace struct {
	Schedule
	Index, Writers int
	period         float64 // nanoseconds between two tokens of the schedule
}

// NewPace is writer index's share of s among writers writers.
func NewPace(s Schedule, index, writers int) *Pace {
	return &Pace{Schedule: s, Index: index, Writers: writers, period: 1e9 / s.Rate}
}

// Due is when the writer's k-th token (from 0) is due: the schedule's
// token k·Writers+Index.
func (p *Pace) Due(k uint64) int64 {
	return p.T0 + int64(float64(k*uint64(p.Writers)+uint64(p.Index)+1)*p.period)
}

// DueBy is how many of the writer's tokens are due at or before t.
func (p *Pace) DueBy(t int64) uint64 {
	if t < p.Due(0) {
		return 0
	}
	// An estimate from the arithmetic, made exact by Due itself, so that
	// the tokens counted due are those Due puts at or before t.
	k := uint64(math.Max((float64(t-p.T0)/p.period-float64(p.Index+1))/float64(p.Writers), 0)) + 1
	for k > 0 && p.Due(k-1) > t {
		k--
	}
	for p.Due(k) <= t {
		k++
	}
	return k
}

// Tick is the writer's tick: the time between two of its tokens, or
// MinTick where they come faster.
func (p *Pace) Tick() time.Duration {
	return max(time.Duration(math.Round(p.period*float64(p.Writers))), MinTick)
}

// TokensPerTick is how many tokens a tick of the writer's is due: 1, or
// more where the tick is MinTick.
func (p *Pace) TokensPerTick() float64 {
	return float64(p.Tick()) / (p.period * float64(p.Writers))
}

// wake is when the writer, woken at now with sent tokens written, sleeps
// until: its next token's due time, no sooner than MinTick after now
// (a token left due by a full pipe waits that long) and no later than
// MaxSleep after it.
func (p *Pace) wake(sent uint64, now int64) int64 {
	return min(max(p.Due(sent), now+int64(MinTick)), now+int64(MaxSleep))
}

// paced writes tokens on w.Pace's schedule until the stop flag is set or
// the stop word arrives (looked for as the unbounded writer does, every
// checkEvery writes). It counts its sleeps as Waits and its wake-ups as
// Ticks.
func (w *Writer) paced() error {
	restore := preciseTimers()
	defer restore()
	var buf [8]byte
	c := &w.Counts
	fixed := w.fixedToken()
	var looked uint64 // writes when the credit pipe was last looked at
	at := w.Pace.wake(0, w.Pace.T0)
	for {
		if err := w.waitUntil(at); err != nil || w.Stop.Load() {
			return err
		}
		now := Nanotime()
		c.Ticks++
		w.LastTick = now
		if err := w.tick(now, fixed); err != nil {
			return err
		}
		if c.Writes-looked >= checkEvery {
			looked = c.Writes
			if stop, err := w.lookForStop(&buf); stop || err != nil {
				return err
			}
		}
		at = w.Pace.wake(c.Sent, now)
	}
}

// waitUntil waits until the monotonic clock reads t: asleep, or, for a
// wait shorter than SpinBelow, reading the clock. A signal that ends the
// sleep (the runtime's preemption) is followed by another sleep until
// the same time, unless the stop flag was set meanwhile; the caller looks
// at the flag when it returns.
func (w *Writer) waitUntil(t int64) error {
	if t-Nanotime() < int64(SpinBelow) {
		w.spinUntil(t)
		return nil
	}
	for {
		w.Counts.Waits++
		switch e := sleepUntil(t); e {
		case 0:
			return nil
		case unix.EINTR:
			if w.Stop.Load() {
				return nil
			}
		default:
			return fmt.Errorf("writer: clock_nanosleep until the next tick: %w", e)
		}
	}
}

// spinUntil waits until the monotonic clock reads t, reading it, for a
// wait shorter than SpinBelow, or until the stop flag is set.
func (w *Writer) spinUntil(t int64) {
	for Nanotime() < t && !w.Stop.Load() {
	}
}

// tick writes every token of the writer's that is due by now and not yet
// written, stamped with its due time when tokens carry one (fixed nil),
// until a pipe is full: that token stays due for the next tick.
func (w *Writer) tick(now int64, fixed []byte) error {
	p, c := w.Pace, &w.Counts
	due := p.DueBy(now)
	if due <= c.Sent {
		return nil
	}
	c.MaxBacklog = max(c.MaxBacklog, due-c.Sent)
	for c.Sent < due {
		if w.Stop.Load() {
			return nil
		}
		j := w.Route.Pick()
		tok := fixed
		if tok == nil {
			tok = PutStamp(&w.tokBuf, p.Due(c.Sent))
		}
		// The write in the loop's own body, as the unbounded writer's:
		// a call per token would cost a frame.
		n, e := Write(w.WFDs[j], tok).Split()
		switch {
		case e == 0 && n == len(tok):
			c.Sent++
			c.Writes++
		case e == unix.EAGAIN:
			c.Full++
			c.Writes++
			return nil // the token stays due
		default:
			return w.writeErr(j, n, len(tok), e)
		}
	}
	return nil
}

// sleepUntil sleeps until the monotonic clock reads t (at once if it
// has), in clock_nanosleep(2) as a raw system call, as the writer's wait
// for credits sleeps (syscalls.go): the thread keeps its P. A signal ends
// the sleep with EINTR; the caller's loop then calls sleepUntil again,
// whose prologue is where the goroutine stops if the runtime asked it to,
// so it is kept out of line.
//
//go:noinline
func sleepUntil(t int64) unix.Errno {
	ts := unix.NsecToTimespec(t)
	_, _, e := unix.RawSyscall6(unix.SYS_CLOCK_NANOSLEEP, unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
	return e
}

// preciseTimers sets the calling thread's timer slack to 1 ns and returns
// what puts it back: a thread's sleep may otherwise end up to its slack
// late (50 µs by default, prctl(2) PR_SET_TIMERSLACK), as long as
// MinTick. Where the slack cannot be read or set it is left as it is.
func preciseTimers() (restore func()) {
	old, err := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0)
	if err != nil || unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0) != nil {
		return func() {}
	}
	return func() { _ = unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(old), 0, 0, 0) }
}
