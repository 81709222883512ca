package herd

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/internal/osthread"
	"github.com/pipebench/pipebench/internal/tokens"
)

// readSize is the most one read takes, as in the main harness.
const readSize = 1024

// waiter is one member of the herd: an epoll instance of its own over every
// pipe's read end (EPOLLEXCLUSIVE or not) and over the stop pipe (never
// exclusive, so that one byte in it stops every waiter at once). Threads and
// processes run the same loop.
type waiter struct {
	epfd    int
	rfds    []int32
	stopTag int32 // the stop pipe's tag: len(rfds)
	credit  int32
	timeout int // milliseconds, > 0
	events  []unix.EpollEvent
	slot    *slot
	buf     [readSize]byte
	cbuf    [8]byte
}

// newWaiter makes the waiter's epoll set: rfds[i] under tag i, the stop
// pipe's read end under tag len(rfds).
func newWaiter(rfds []int32, stop, credit int32, exclusive bool, timeout time.Duration, s *slot) (*waiter, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("epoll_create1: %w", err)
	}
	w := &waiter{
		epfd: epfd, rfds: rfds, stopTag: int32(len(rfds)), credit: credit,
		timeout: max(int((timeout+time.Millisecond-1)/time.Millisecond), 1),
		events:  make([]unix.EpollEvent, min(len(rfds)+1, 1024)),
		slot:    s,
	}
	flags := uint32(unix.EPOLLIN)
	if exclusive {
		flags |= unix.EPOLLEXCLUSIVE
	}
	for i, fd := range rfds {
		ev := unix.EpollEvent{Events: flags, Fd: int32(i)}
		if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, int(fd), &ev); err != nil {
			w.close()
			return nil, fmt.Errorf("epoll_ctl add pipe %d (fd %d): %w", i, fd, err)
		}
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: w.stopTag}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, int(stop), &ev); err != nil {
		w.close()
		return nil, fmt.Errorf("epoll_ctl add the stop pipe (fd %d): %w", stop, err)
	}
	return w, nil
}

func (w *waiter) close() { unix.Close(w.epfd) }

// serve runs the waiter from its first wait to its stop, then stores its
// thread's usage and marks its slot done. The caller has locked its thread.
func (w *waiter) serve(id int) error {
	w.slot.store(fID, uint64(id))
	u := osthread.StartUsage(unix.RUSAGE_THREAD)
	w.slot.store(fReady, 1)
	loopErr := w.loop()
	usage, err := u.Stop()
	if err == nil {
		w.slot.storeUsage(usage)
	}
	w.slot.store(fDone, 1)
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
		n, err := w.wait()
		if err != nil {
			return err
		}
		if n == 0 {
			w.slot.add(fWaits, 1)
			w.slot.add(fTimeouts, 1)
			continue
		}
		var reported, events, got, wasted uint64
		stop := false
		for _, ev := range w.events[:n] {
			if ev.Fd == w.stopTag {
				stop = true
				continue
			}
			reported++
			fd := w.rfds[ev.Fd]
			m, e := tokens.Read(fd, w.buf[:])
			switch {
			case e == unix.EAGAIN:
				wasted++
				continue
			case e != 0:
				return fmt.Errorf("read pipe %d (fd %d): %w", ev.Fd, fd, e)
			case m == 0:
				return fmt.Errorf("pipe %d reached end of file: its writer closed it", ev.Fd)
			}
			events++
			got += uint64(m)
		}
		if got > 0 {
			if err := tokens.SendCredit(w.credit, &w.cbuf, got); err != nil {
				return fmt.Errorf("return credits: %w", err)
			}
			w.slot.add(fCredits, 1)
		}
		w.slot.add(fWaits, 1)
		if reported > 0 {
			w.slot.add(fReturns, 1)
			if events == 0 {
				w.slot.add(fWastedReturns, 1)
			}
		}
		if events > 0 {
			w.slot.add(fEvents, events)
			w.slot.add(fTokens, got)
		}
		if wasted > 0 {
			w.slot.add(fWastedReads, wasted)
		}
		if stop {
			return nil
		}
	}
}

// wait is epoll_wait with the waiter's timeout; EINTR is retried (with the
// whole timeout again: a wait may then last longer, never forever).
//
// Unlike the harness's reader, a waiter sleeps through Syscall, which tells
// the Go scheduler: a herd is hundreds of threads that sleep most of the
// time, and the scheduler sends a preemption signal every 10 ms to a
// goroutine it believes is running (as a raw call would make it believe),
// which for 250 waiters is 25,000 signals and wake-ups a second that the
// herd would count as its own. Through Syscall a sleeping waiter's P is
// taken away instead, and a woken waiter takes an idle one back (there are
// enough: Run lends one per waiter), without a signal.
func (w *waiter) wait() (int, error) {
	for {
		n, err := unix.EpollWait(w.epfd, w.events, w.timeout)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("epoll_wait: %w", err)
		}
		return n, nil
	}
}
