// Package epoll is the epoll(7) backend of pipebench, in the variants worth
// comparing, each its own factory sharing one implementation: level-triggered
// ("epoll"), edge-triggered ("epoll-et") and one-shot ("epoll-oneshot").
// Interest lives in the kernel, so Wait costs what is ready rather than what
// is registered, and every change of interest is an epoll_ctl call, counted
// by CtlCalls. OpenWaiter opens a set as one of a herd's waiters
// (experiment/herd), with what only they ask for (Waiter: EPOLLEXCLUSIVE,
// sleeping through syscall.Syscall); Options.Nest registers the descriptors in a chain of nested
// epoll sets below the one Wait sleeps on (nest.go); Share hands out
// further waiters on the same sets, for readers that share them
// (share.go).
//
// Imports: as imports_test.go at the module's root allows (the table in
// docs/contributing.md shows the rules).
package epoll

import (
	"fmt"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/internal/waitcall"
	"github.com/pipebench/pipebench/pipebench"
)

// maxEvents caps the events buffer: one epoll_wait reports at most this many.
const maxEvents = 65536

// backend is one epoll instance. The tag is stored in the event's data (Fd)
// and the descriptor beside it (Pad), so Wait maps events to tags with no
// lookup and a one-shot re-arm knows which descriptor to modify.
type backend struct {
	// epfd is the set the descriptors are registered in; top is the one
	// Wait sleeps on: epfd itself, or the head of a chain of nested sets
	// (Options.Nest) whose last is epfd.
	epfd      int
	top       int
	chain     nest // empty in a share (Share): the sets are another backend's
	events    []unix.EpollEvent
	addEvents uint32 // events for EPOLL_CTL_ADD
	modEvents uint32 // events for a one-shot re-arm (EPOLLEXCLUSIVE is refused on MOD)
	oneShot   bool
	ctl       atomic.Uint64
	calls     uint64 // epoll_pwait calls, for WaitSyscalls
	// syscallSleep: sleep through syscall.Syscall (Waiter.SyscallSleep).
	syscallSleep bool

	// One-shot only: events[:reported] are what the last Wait reported,
	// disarmed by the kernel; disarmed[fd] says fd is still registered and
	// waits for its re-arm at the start of the next Wait.
	reported int
	disarmed []bool
}

// wait is one readiness call: one epoll_pwait on the registered set, or,
// nested, one on the top set, which sleeps until readiness has come up the
// chain, and one that does not sleep on the registered set.
func (b *backend) wait(events []unix.EpollEvent, msec int) (int, error) {
	if b.top != b.epfd {
		n, err := b.pwait(b.top, b.chain.head[:], msec)
		if n == 0 || err != nil {
			return n, err
		}
		msec = 0
	}
	return b.pwait(b.epfd, events, msec)
}

// pwait is one counted epoll_pwait on epfd with no signal mask (epoll_wait
// where it exists, and the only form on arm64). It blocks as the Mechanism
// contract says a wait call must: a raw system call that keeps this
// thread's P (waitcall.Raw6, one frame to the kernel), unless the opener
// asked for Waiter.SyscallSleep. Wait makes the common call (no nesting,
// no one-shot, no SyscallSleep) itself, the same way, so that only Wait's
// own frame and Raw6's stand between the reader's loop and the system
// call: each frame a return unwinds after a system call costs time
// (internal/waitcall).
func (b *backend) pwait(epfd int, events []unix.EpollEvent, msec int) (int, error) {
	b.calls++
	a1, a2, a3, a4 := uintptr(epfd), uintptr(unsafe.Pointer(unsafe.SliceData(events))), uintptr(len(events)), uintptr(msec)
	if b.syscallSleep {
		r, _, e := syscall.Syscall6(unix.SYS_EPOLL_PWAIT, a1, a2, a3, a4, 0, 0)
		if e != 0 {
			return 0, e
		}
		return int(r), nil
	}
	n, e := waitcall.Split(waitcall.Raw6(unix.SYS_EPOLL_PWAIT, a1, a2, a3, a4, 0, 0))
	if e != 0 {
		return 0, e
	}
	return n, nil
}

// opener returns the Open function of the variant whose extra event flags
// are mode (0, EPOLLET or EPOLLONESHOT).
func opener(mode uint32) func(pipebench.Options) (pipebench.Mechanism, error) {
	return func(o pipebench.Options) (pipebench.Mechanism, error) { return open(o, mode, Waiter{}) }
}

// Waiter is what a herd's waiter (experiment/herd) asks of its epoll set
// and the harness never does.
type Waiter struct {
	// Exclusive adds EPOLLEXCLUSIVE to every registration: the kernel wakes
	// one (or a few) of the sets waiting on a descriptor, not every one.
	Exclusive bool
	// SyscallSleep makes Wait sleep through syscall.Syscall, which tells the
	// Go scheduler that the thread is in a system call, rather than through
	// a raw call that keeps its P (see pipebench.Mechanism). A herd is hundreds
	// of threads that sleep most of the time, which in raw calls the runtime
	// takes for running goroutines and signals every 10 ms to preempt them,
	// each signal a wake-up and a context switch that the herd would count
	// as its own (measured: 250 waiters with EPOLLEXCLUSIVE counted 1.8
	// wake-ups per token instead of 1.0).
	SyscallSleep bool
}

// OpenWaiter opens a level-triggered set (LevelFactory's) as waiter w.
func OpenWaiter(o pipebench.Options, w Waiter) (pipebench.Mechanism, error) { return open(o, 0, w) }

func open(o pipebench.Options, mode uint32, w Waiter) (pipebench.Mechanism, error) {
	if o.Pipes < 0 || o.MaxFD < 0 {
		return nil, fmt.Errorf("epoll: negative size in options (pipes %d, max fd %d)", o.Pipes, o.MaxFD)
	}
	oneShot := mode&unix.EPOLLONESHOT != 0
	if w.Exclusive && oneShot {
		return nil, fmt.Errorf("epoll: EPOLLEXCLUSIVE cannot be combined with EPOLLONESHOT")
	}
	chain, err := newNest(o.Nest)
	if err != nil {
		return nil, err
	}
	b := &backend{
		epfd:         chain.bottom(),
		top:          chain.levels[0],
		chain:        chain,
		events:       make([]unix.EpollEvent, min(max(o.Pipes, 1), maxEvents)),
		addEvents:    unix.EPOLLIN | mode,
		modEvents:    unix.EPOLLIN | mode,
		oneShot:      oneShot,
		syscallSleep: w.SyscallSleep,
	}
	if w.Exclusive {
		b.addEvents |= unix.EPOLLEXCLUSIVE
	}
	if oneShot {
		b.disarmed = make([]bool, o.MaxFD+1)
	}
	return b, nil
}

// ctlCall makes one counted epoll_ctl call.
func (b *backend) ctlCall(op, fd int, ev *unix.EpollEvent) error {
	b.ctl.Add(1)
	return unix.EpollCtl(b.epfd, op, fd, ev)
}

func (b *backend) Add(fd int, tag int32) error {
	ev := unix.EpollEvent{Events: b.addEvents, Fd: tag, Pad: int32(fd)}
	if err := b.ctlCall(unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		return fmt.Errorf("epoll_ctl add fd %d: %w", fd, err)
	}
	if b.oneShot {
		b.disarmed = waitcall.Grow(b.disarmed, fd, false)
		b.disarmed[fd] = false
	}
	return nil
}

func (b *backend) Remove(fd int, tag int32) error {
	if err := b.ctlCall(unix.EPOLL_CTL_DEL, fd, nil); err != nil {
		return fmt.Errorf("epoll_ctl del fd %d: %w", fd, err)
	}
	if b.oneShot && fd < len(b.disarmed) {
		b.disarmed[fd] = false // removed since reported: no re-arm
	}
	return nil
}

// Wait makes the common call (a set neither one-shot nor nested, no
// SyscallSleep) itself, pwait's raw call in place, and leaves every other
// case to waitOther and a failed call to finish: the common path keeps to
// one test and no frame of ours before the system call.
func (b *backend) Wait(ready []int32, timeout time.Duration) (int, error) {
	if !b.plain() || len(ready) == 0 {
		return b.waitOther(ready, timeout)
	}
	events := b.events[:min(len(ready), len(b.events))]
	b.calls++
	n, e := waitcall.Split(waitcall.Raw6(unix.SYS_EPOLL_PWAIT, uintptr(b.epfd), uintptr(unsafe.Pointer(unsafe.SliceData(events))), uintptr(len(events)), uintptr(waitcall.Millis(timeout)), 0, 0))
	if e != 0 {
		return b.finish(ready, events, 0, e, timeout)
	}
	return tagsOf(ready, events[:n]), nil
}

// waitOther is Wait on a one-shot or nested set, or with SyscallSleep.
func (b *backend) waitOther(ready []int32, timeout time.Duration) (int, error) {
	if len(ready) == 0 {
		return 0, waitcall.ErrNoRoom
	}
	if b.oneShot {
		if err := b.rearm(); err != nil {
			return 0, err
		}
	}
	events := b.events[:min(len(ready), len(b.events))]
	n, err := b.wait(events, waitcall.Millis(timeout))
	return b.finish(ready, events, n, err, timeout)
}

// finish ends a Wait whose call returned n and err: it makes the call
// again after EINTR (RetryEINTR), wraps a failure, and otherwise reports
// the n events' tags and notes what a one-shot set disarmed.
func (b *backend) finish(ready []int32, events []unix.EpollEvent, n int, err error, timeout time.Duration) (int, error) {
	if err == unix.EINTR {
		n, err = waitcall.RetryEINTR(timeout, func(d time.Duration) (int, error) {
			return b.wait(events, waitcall.Millis(d))
		})
	}
	if err != nil {
		return 0, fmt.Errorf("epoll_wait: %w", err)
	}
	tagsOf(ready, events[:n])
	if b.oneShot {
		b.disarmedBy(events[:n])
	}
	return n, nil
}

// tagsOf writes the tag of each of events (its Fd field, where Add put
// it) into ready and returns how many.
func tagsOf(ready []int32, events []unix.EpollEvent) int {
	for i, ev := range events {
		ready[i] = ev.Fd
	}
	return len(events)
}

func (b *backend) CtlCalls() uint64 { return b.ctl.Load() }

func (b *backend) WaitSyscalls() uint64 { return b.calls }

// plain says whether Wait is one epoll_pwait on the set and nothing else:
// no one-shot re-arm, no nested sets, no sleep through syscall.Syscall.
func (b *backend) plain() bool { return !b.oneShot && b.top == b.epfd && !b.syscallSleep }

func (b *backend) Close() error {
	if b.epfd < 0 {
		return nil
	}
	b.epfd, b.top = -1, -1
	return b.chain.close() // closes nothing in a share
}
