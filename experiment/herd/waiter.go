package herd

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/epoll"
	"github.com/pipebench/pipebench/internal/osthread"
	"github.com/pipebench/pipebench/internal/tokens"
	"github.com/pipebench/pipebench/pipebench"
)

// readSize is the most one read takes, as in the main harness.
const readSize = 1024

// waiter is one member of the herd: an epoll backend of its own
// (epoll.OpenWaiter: level-triggered, EPOLLEXCLUSIVE or not) over every pipe's read end
// and over its own stop descriptor, an eventfd no other waiter watches (so
// that EPOLLEXCLUSIVE, which the backend sets on every registration, cannot
// keep a stop from it). Threads and processes run the same loop.
//
// It waits through Mechanism.Wait, which for the herd sleeps in
// syscall.Syscall (epoll.Waiter.SyscallSleep), not in the raw call the harness's
// reader sleeps in: a herd is hundreds of threads that sleep most of the
// time, and the Go runtime signals a goroutine it believes is running (as
// a raw call makes it believe) every 10 ms to preempt it: 25,000 signals a
// second for 250 waiters, each a wake-up and a context switch that the
// herd would count as its own. Measured with 250 waiters and EPOLLEXCLUSIVE
// on: 1.8 wake-ups per token in raw calls, 1.0 through Syscall. Through
// Syscall a sleeping waiter's P is taken away instead, and a woken waiter
// takes an idle one back (there are enough: Run lends one per waiter),
// without a signal.
type waiter struct {
	be      pipebench.Mechanism
	rfds    []int32
	stopTag int32 // the stop descriptor's tag: len(rfds)
	credit  int32
	timeout time.Duration
	ready   []int32
	counts  *waiterCounts
	buf     [readSize]byte
	cbuf    [8]byte
}

// newWaiter opens the waiter's epoll backend and registers rfds[i] under
// tag i and its stop descriptor under tag len(rfds).
func newWaiter(rfds []int32, stop, credit int32, exclusive bool, timeout time.Duration, s *waiterCounts) (*waiter, error) {
	maxFD := int(stop)
	for _, fd := range rfds {
		maxFD = max(maxFD, int(fd))
	}
	be, err := epoll.OpenWaiter(pipebench.Options{Pipes: len(rfds) + 1, MaxFD: maxFD}, epoll.Waiter{Exclusive: exclusive, SyscallSleep: true})
	if err != nil {
		return nil, err
	}
	w := &waiter{
		be: be, rfds: rfds, stopTag: int32(len(rfds)), credit: credit, timeout: timeout,
		ready: make([]int32, min(len(rfds)+1, 1024)), counts: s,
	}
	for i, fd := range rfds {
		if err := be.Add(int(fd), int32(i)); err != nil {
			w.close()
			return nil, fmt.Errorf("register pipe %d: %w", i, err)
		}
	}
	if err := be.Add(int(stop), w.stopTag); err != nil {
		w.close()
		return nil, fmt.Errorf("register the stop eventfd: %w", err)
	}
	return w, nil
}

func (w *waiter) close() { w.be.Close() }

// serve runs the waiter from its first wait to its stop, then stores its
// thread's usage and marks its row done. The caller has locked its thread.
func (w *waiter) serve(id int) error {
	w.counts.store(fID, uint64(id))
	u := osthread.StartUsage(unix.RUSAGE_THREAD)
	w.counts.store(fReady, 1)
	loopErr := w.loop()
	usage, err := u.Stop()
	if err == nil {
		w.counts.storeUsage(usage)
	}
	w.counts.store(fDone, 1)
	if loopErr != nil {
		return loopErr
	}
	return err
}

// loop waits, reads every reported pipe once (non-blocking: another waiter
// may have taken the token), returns credits for what it got and publishes
// its counts once per wait. It allocates nothing and reads no clock.
func (w *waiter) loop() error {
	for {
		n, err := w.be.Wait(w.ready, w.timeout)
		if err != nil {
			return err
		}
		if n == 0 {
			w.counts.add(fWaits, 1)
			w.counts.add(fTimeouts, 1)
			continue
		}
		var reported, events, got, wasted uint64
		stop := false
		for _, tag := range w.ready[:n] {
			if tag == w.stopTag {
				stop = true
				continue
			}
			reported++
			fd := w.rfds[tag]
			m, e := tokens.Read(fd, w.buf[:]).Split()
			switch {
			case e == unix.EAGAIN:
				wasted++
				continue
			case e != 0:
				return fmt.Errorf("read pipe %d (fd %d): %w", tag, fd, e)
			case m == 0:
				return &pipebench.EOFError{Pipe: int(tag)}
			}
			events++
			got += uint64(m)
		}
		if got > 0 {
			if err := tokens.SendCredit(w.credit, &w.cbuf, got); err != nil {
				return fmt.Errorf("return credits: %w", err)
			}
			w.counts.add(fCredits, 1)
		}
		w.counts.add(fWaits, 1)
		if reported > 0 {
			w.counts.add(fReturns, 1)
			if events == 0 {
				w.counts.add(fWastedReturns, 1)
			}
		}
		if events > 0 {
			w.counts.add(fEvents, events)
			w.counts.add(fTokens, got)
		}
		if wasted > 0 {
			w.counts.add(fWastedReads, wasted)
		}
		if stop {
			return nil
		}
	}
}
