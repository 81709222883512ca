package uring

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/pipebench/pipebench/pipebench"
)

// The minimum wait (Options.MinWait, -minwait) is the kernel's, not a
// sleep of ours: io_uring_enter with IORING_ENTER_EXT_ARG takes
// min_wait_usec in struct io_uring_getevents_arg (Linux 6.12,
// IORING_FEAT_MIN_TIMEOUT; io_cqring_wait and io_cqring_min_timer_wakeup
// in io_uring/io_uring.c; liburing's io_uring_submit_and_wait_min_timeout).
// A wait for min_complete completions with a minimum wait D:
//
//   - returns at once if min_complete completions are in the CQ ring when
//     it starts;
//   - otherwise sleeps, and returns as soon as min_complete completions
//     are in, however soon that is;
//   - when D has passed since it started, returns if the CQ ring holds any
//     completion at all: one that came before D waits until D;
//   - after D, with none in, returns at the first completion posted, or at
//     the timeout; with no timeout at all, the kernel ends the wait at D
//     (ETIME), and waitMin waits on, without a minimum wait, for the first.
//
// So a completion that arrives before D does not end the wait: it waits
// for D, or for a full batch. The backends ask for a full batch the size
// of the ready slice (the poll backends: a completion per ready pipe) or
// for more than they can ever get (uring-epoll, whose one request posts
// one completion), so that with fewer ready a Wait that blocks lasts D at
// least; and every Wait that may block enters the kernel, even with
// completions in the CQ ring already, since the rule is the kernel's. A
// Wait with timeout 0 does not block and has no minimum wait; a positive
// timeout shorter than D shortens it (the Mechanism contract: at most
// about the timeout). A signal that ends the kernel's wait early has it
// made again for what remains of D (waitMin).
//
// Kernels before 6.12 ignore the field (it was padding), so a kernel
// without the feature bit is refused, not run without it.

// minWaitKernel is the release that added IORING_FEAT_MIN_TIMEOUT.
const minWaitKernel = "6.12"

// noMinWait refuses a minimum wait on a kernel without it (Open).
func noMinWait(release string) error {
	return fmt.Errorf("io_uring's minimum wait (IORING_FEAT_MIN_TIMEOUT, min_wait_usec) needs Linux %s, this is %s: use -delay, a sleep before each readiness call (%w)",
		minWaitKernel, release, errors.ErrUnsupported)
}

// checkMinWait refuses, before any work, a minimum wait this kernel lacks
// (part of Factory.Check): one line naming -minwait, the backend and the
// release that added it.
func checkMinWait(c *pipebench.Config, name string, n pipebench.Names) error {
	if c.MinWait == 0 {
		return nil
	}
	lacks := kernelFact("min timeout", func(r *ring) error {
		if r.features&featMinTimeout == 0 {
			return errors.ErrUnsupported
		}
		return nil
	})
	if lacks == nil {
		return nil
	}
	return n.Errorf("%s with %s: io_uring's minimum wait (IORING_FEAT_MIN_TIMEOUT) needs Linux %s; this kernel (%s) lacks it: use %s, a sleep before each readiness call",
		pipebench.Set("MinWait", c.MinWait), pipebench.Set("Backend", name), minWaitKernel, kernelRelease(), pipebench.Field("Delay"))
}

// openMinWait refuses, in Open, a minimum wait ring r's kernel lacks.
func openMinWait(r *ring, d time.Duration) error {
	if d > 0 && r.features&featMinTimeout == 0 {
		return noMinWait(kernelRelease())
	}
	return nil
}

// ringWaiter is what waitMin asks of a backend: to queue what its next
// io_uring_enter carries (re-arms, an epoll wait), and to reap the CQ
// ring into ready.
type ringWaiter interface {
	queue(ready []int32) error
	reap(ready []int32) (int, error)
}

// waitMin is the Wait of backend w on ring r with a minimum wait d and a
// timeout other than 0, by the kernel's rule above: full completions end
// the minimum wait early. It is apart from the Waits' own loops, which it
// leaves as they were without a minimum wait.
//
// It reads the clock around its io_uring_enter, which no Wait does
// otherwise: a signal (in Go, the runtime's preemption signal reaches a
// thread that waits long about every 10 ms) ends the kernel's wait, and
// when completions are in the kernel reports that as a success
// (io_cqring_wait returns 0 whenever the CQ ring is not empty), so only
// the clock tells a minimum wait cut short from one that ran out. One cut
// short is made again for the rest. The reads cost tens of nanoseconds
// (vDSO) against a wait of a microsecond at least.
func waitMin(r *ring, w ringWaiter, ready []int32, timeout, d time.Duration, full uint32) (int, error) {
	start := time.Now()
	left, mw := timeout, d
	for {
		if err := w.queue(ready); err != nil {
			return 0, err
		}
		want := full
		if mw = minWaitWithin(mw, left); mw < time.Microsecond { // the kernel counts whole microseconds
			want, mw = 1, 0
		}
		if _, errno := r.enterMin(want, true, left, mw); waitFailed(errno) {
			return 0, fmt.Errorf("io_uring_enter: %w", errno)
		}
		took := time.Since(start)
		if timeout > 0 {
			left = max(timeout-took, 0)
		}
		if mw > 0 && took < d && left != 0 && atomic.LoadUint32(r.cqTail)-atomic.LoadUint32(r.cqHead) < want {
			mw = d - took // cut short by a signal: wait out the rest
			continue
		}
		n, err := w.reap(ready)
		if n > 0 || err != nil || left == 0 {
			return n, err
		}
		// Nothing to report after the minimum wait (with no timeout the
		// kernel ends the wait there, ETIME; or only completions of removed
		// registrations came): wait for the first.
		mw = 0
	}
}

// minWaitWithin is the minimum wait of a wait with timeout: d, shortened
// to a positive timeout.
func minWaitWithin(d, timeout time.Duration) time.Duration {
	if timeout > 0 && d > timeout {
		return timeout
	}
	return d
}
