package uring

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/internal/waitcall"
	"github.com/pipebench/pipebench/pipebench"
)

// uring-epoll is the path of a program that moves to io_uring while its
// event loop stays epoll: the pipes are in an epoll set, registered with
// epoll_ctl, and the reader waits for the set through the ring, with one
// IORING_OP_EPOLL_WAIT request (Linux 6.15), reading its events from the
// completion. The set is level-triggered, as epoll's default is: a pipe
// reported and not read dry is reported again.

// epollWaitKernel is the release that added IORING_OP_EPOLL_WAIT.
const epollWaitKernel = "6.15"

// User data of the two requests the ring carries: the epoll wait, and the
// cancellation that ends it at Close.
const (
	epollWaitData   = 1
	epollCancelData = 2
)

// epollBackend waits on an epoll set through a ring. Wait submits an
// EPOLL_WAIT for the set, in the io_uring_enter that waits for its
// completion; the kernel stores the ready events in events, at once if
// some are ready, otherwise when the set turns ready (an internal poll of
// the set), and posts the completion. One request is in the kernel at a
// time: a Wait that returns before the completion (its timeout passed)
// leaves it there, and the next Wait waits for it rather than submit
// another. Add and Remove are epoll_ctl calls, counted by CtlCalls; every
// io_uring_enter, by WaitSyscalls.
type epollBackend struct {
	ring *ring
	epfd int
	// events are the epoll wait's: the kernel stores them after the Wait
	// that submitted it may have returned, so the array never moves, and
	// Close cancels the request before the array can be freed.
	events []unix.EpollEvent
	// events[next:end] were stored by the kernel and not yet reported: a
	// Wait's ready slice was shorter than the request's maxevents.
	next, end int
	// gens holds each tag's registration generation (0: none), which its
	// events carry beside the tag (data.fd, data.pad), so that an event
	// stored before a Remove is never reported after it.
	gens     []uint32
	gen      uint32
	inFlight bool // an EPOLL_WAIT is in the kernel
	minWait  time.Duration
	ctl      atomic.Uint64
}

// epollOpener returns the Open function of uring-epoll with settings s.
func epollOpener(s Settings) func(pipebench.Options) (pipebench.Mechanism, error) {
	return func(o pipebench.Options) (pipebench.Mechanism, error) { return openEpoll(o, s) }
}

// maxEpollEvents caps the events one epoll wait stores (epoll's backend
// caps its buffer the same).
const maxEpollEvents = 65536

func openEpoll(o pipebench.Options, s Settings) (pipebench.Mechanism, error) {
	if o.Pipes < 0 || o.MaxFD < 0 {
		return nil, fmt.Errorf("io_uring: negative size in options (pipes %d, max fd %d)", o.Pipes, o.MaxFD)
	}
	// Two entries: the epoll wait, and at Close its cancellation.
	r, err := newRing(8, 16, false, s&epollSettings)
	if err != nil {
		return nil, err
	}
	if err := epollRing(r, o.MinWait); err != nil {
		r.close()
		return nil, err
	}
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		r.close()
		return nil, fmt.Errorf("epoll_create1: %w", err)
	}
	return &epollBackend{
		ring:    r,
		epfd:    epfd,
		events:  make([]unix.EpollEvent, min(max(o.Pipes, 1), maxEpollEvents)),
		gens:    make([]uint32, o.Pipes),
		minWait: o.MinWait,
	}, nil
}

// epollRing refuses a ring whose kernel cannot run uring-epoll: no timed
// wait, no IORING_OP_EPOLL_WAIT, or no minimum wait where one is asked.
func epollRing(r *ring, minWait time.Duration) error {
	if r.features&featExtArg == 0 {
		return errNoExtArg
	}
	ok, err := r.supports(opEpollWait)
	if err != nil {
		return err
	}
	if !ok {
		return noEpollWait(kernelRelease())
	}
	return openMinWait(r, minWait)
}

// noEpollWait refuses uring-epoll on a kernel without the operation
// (Open).
func noEpollWait(release string) error {
	return fmt.Errorf("IORING_OP_EPOLL_WAIT needs Linux %s, this is %s: -b epoll makes the epoll_wait it stands for (%w)",
		epollWaitKernel, release, errors.ErrUnsupported)
}

// checkEpollWait refuses, before any work, uring-epoll named name on a
// kernel without IORING_OP_EPOLL_WAIT (part of Factory.Check).
func checkEpollWait(name string, n pipebench.Names) error {
	lacks := kernelFact("epoll wait", func(r *ring) error {
		if ok, err := r.supports(opEpollWait); err == nil && !ok {
			return errors.ErrUnsupported
		}
		return nil
	})
	if lacks == nil {
		return nil
	}
	return n.Errorf("%s: IORING_OP_EPOLL_WAIT needs Linux %s; this kernel (%s) lacks it: %s makes the epoll_wait it stands for",
		pipebench.Set("Backend", name), epollWaitKernel, kernelRelease(), pipebench.Set("Backend", "epoll"))
}

// epollChecker is the Check of uring-epoll named name with settings s.
func epollChecker(name string, s Settings) func(*pipebench.Config, pipebench.Names) error {
	check := checker("uring-epoll", epollSettings, name, s, false)
	return func(c *pipebench.Config, n pipebench.Names) error {
		if err := checkEpollWait(name, n); err != nil {
			return err
		}
		return check(c, n)
	}
}

// Add registers fd in the set, level-triggered, with tag and a new
// generation as the event's data.
func (b *epollBackend) Add(fd int, tag int32) error {
	if fd < 0 || tag < 0 {
		return fmt.Errorf("io_uring epoll add fd %d tag %d: negative", fd, tag)
	}
	b.gens = waitcall.Grow(b.gens, int(tag), 0)
	if b.gens[tag] != 0 {
		return fmt.Errorf("io_uring epoll add fd %d: tag %d is registered already", fd, tag)
	}
	gen := b.gen%(1<<31-1) + 1
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: tag, Pad: int32(gen)}
	b.ctl.Add(1)
	if err := unix.EpollCtl(b.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		return fmt.Errorf("epoll_ctl add fd %d: %w", fd, err)
	}
	b.gen, b.gens[tag] = gen, gen
	return nil
}

// Remove takes fd out of the set; events of tag stored before are dropped.
func (b *epollBackend) Remove(fd int, tag int32) error {
	b.ctl.Add(1)
	if err := unix.EpollCtl(b.epfd, unix.EPOLL_CTL_DEL, fd, nil); err != nil {
		return fmt.Errorf("epoll_ctl del fd %d: %w", fd, err)
	}
	if tag >= 0 && int(tag) < len(b.gens) {
		b.gens[tag] = 0
	}
	return nil
}

// Wait reports the tags of the epoll wait's events. Events stored and not
// yet reported are reported first, with no system call. Otherwise it
// submits an epoll wait, unless one is in the kernel already, and waits
// for its completion in the same io_uring_enter; a completion posted
// since the last Wait is taken with no system call, unless a minimum wait
// is asked (waitMin).
func (b *epollBackend) Wait(ready []int32, timeout time.Duration) (int, error) {
	if len(ready) == 0 {
		return 0, waitcall.ErrNoRoom
	}
	if b.next < b.end {
		if n := b.report(ready); n > 0 {
			return n, nil
		}
	}
	if b.minWait > 0 && timeout != 0 {
		// More than the one request can post: the wait lasts the minimum
		// wait, or until its completion if that comes later.
		return waitMin(b.ring, b, ready, timeout, b.minWait, 2)
	}
	var start time.Time
	left := timeout
	for {
		if !b.inFlight {
			if err := b.submit(len(ready)); err != nil {
				return 0, err
			}
		} else if b.ring.cqReady() {
			n, err := b.reap(ready)
			if n > 0 || err != nil {
				return n, err
			}
			continue // cancelled, or only removed registrations': submit again
		}
		_, errno := b.ring.enter(waitFor(left), true, left)
		if waitFailed(errno) {
			return 0, fmt.Errorf("io_uring_enter: %w", errno)
		}
		n, err := b.reap(ready)
		if n > 0 || err != nil || left == 0 || errno == unix.ETIME {
			return n, err
		}
		// Nothing to report yet: a signal, a cancelled request or events
		// of removed registrations only. As the poll backend's Wait, the
		// clock starts only now (waitcall.Interrupted).
		var ok bool
		if left, ok = waitcall.Interrupted(timeout, &start); !ok {
			return 0, nil
		}
	}
}

// queue submits an epoll wait unless one is in the kernel (waitMin's
// ringWaiter).
func (b *epollBackend) queue(ready []int32) error {
	if b.inFlight {
		return nil
	}
	return b.submit(len(ready))
}

// submit queues an epoll wait for at most room events (and the events
// array's length).
func (b *epollBackend) submit(room int) error {
	s, err := b.ring.slot()
	if err != nil {
		return fmt.Errorf("io_uring epoll wait: %w", err)
	}
	s.opcode, s.fd, s.userData = opEpollWait, int32(b.epfd), epollWaitData
	s.addr, s.len = uint64(uintptr(unsafe.Pointer(unsafe.SliceData(b.events)))), uint32(min(room, len(b.events)))
	b.ring.push()
	b.inFlight = true
	return nil
}

// reap consumes the epoll wait's completion, if the CQ ring holds it, and
// reports its events. A request the kernel cancelled (its submitting
// thread exited) reports nothing: the next round submits another.
func (b *epollBackend) reap(ready []int32) (int, error) {
	rg := b.ring
	head := atomic.LoadUint32(rg.cqHead)
	if head == atomic.LoadUint32(rg.cqTail) {
		return 0, nil
	}
	c := rg.cqes[head&rg.cqMask]
	storeRelease(rg.cqHead, head+1)
	b.inFlight = false
	switch {
	case c.res == -int32(unix.ECANCELED):
		return 0, nil
	case c.res < 0:
		return 0, fmt.Errorf("io_uring epoll wait on epoll fd %d: %w", b.epfd, unix.Errno(-c.res))
	}
	b.next, b.end = 0, min(int(c.res), len(b.events))
	return b.report(ready), nil
}

// report hands the stored events' tags to ready, those of registrations
// still current, as many as fit; the rest wait for the next Wait.
func (b *epollBackend) report(ready []int32) int {
	k := 0
	for ; b.next < b.end && k < len(ready); b.next++ {
		ev := &b.events[b.next]
		if tag := ev.Fd; tag >= 0 && int(tag) < len(b.gens) && b.gens[tag] == uint32(ev.Pad) {
			ready[k] = tag
			k++
		}
	}
	return k
}

// CtlCalls counts the epoll_ctl calls: system calls of their own.
func (b *epollBackend) CtlCalls() uint64 { return b.ctl.Load() }

func (b *epollBackend) WaitSyscalls() uint64 { return b.ring.enters }

// Close cancels the epoll wait still in the kernel, if any, and waits for
// its completion, so that the kernel stores no event after Close; then it
// closes the ring and the set.
func (b *epollBackend) Close() error {
	if b.epfd < 0 {
		return nil
	}
	err := b.cancel()
	if e := b.ring.close(); err == nil {
		err = e
	}
	if e := unix.Close(b.epfd); err == nil && e != nil {
		err = fmt.Errorf("close epoll fd: %w", e)
	}
	b.epfd = -1
	return err
}

// cancelWait bounds Close's wait for the cancelled request's completion,
// which the kernel posts as task work of the thread that submitted it.
const cancelWait = 5 * time.Second

// cancel ends the epoll wait in the kernel (IORING_OP_ASYNC_CANCEL) and
// waits for its completion.
func (b *epollBackend) cancel() error {
	if !b.inFlight {
		return nil
	}
	s, err := b.ring.slot()
	if err != nil {
		return fmt.Errorf("io_uring epoll wait cancel: %w", err)
	}
	s.opcode, s.fd, s.addr, s.userData = opCancel, -1, epollWaitData, epollCancelData
	b.ring.push()
	deadline := time.Now().Add(cancelWait)
	for b.inFlight {
		if _, e := b.ring.enter(1, true, 100*time.Millisecond); waitFailed(e) {
			return fmt.Errorf("io_uring_enter (cancel the epoll wait): %w", e)
		}
		b.drainCQ()
		if b.inFlight && time.Now().After(deadline) {
			return fmt.Errorf("io_uring epoll wait: no completion %v after its cancellation", cancelWait)
		}
	}
	return nil
}

// drainCQ consumes every completion in the CQ ring, noting the epoll
// wait's.
func (b *epollBackend) drainCQ() {
	rg := b.ring
	head, tail := atomic.LoadUint32(rg.cqHead), atomic.LoadUint32(rg.cqTail)
	for ; head != tail; head++ {
		if rg.cqes[head&rg.cqMask].userData == epollWaitData {
			b.inFlight = false
		}
	}
	storeRelease(rg.cqHead, head)
}
