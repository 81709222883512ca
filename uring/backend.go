package uring

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/pipebench/pipebench/internal/waitcall"
	"github.com/pipebench/pipebench/pipebench"
	"golang.org/x/sys/unix"
)

// removeBit marks the user data of a POLL_REMOVE, whose own completion
// reports nothing.
const removeBit = 1 << 63

// backend learns readiness from poll completions on one ring. Add only
// records a registration: its POLL_ADD is queued by Arm (pipebench.Armer)
// or the next Wait, on the thread that will wait, since the kernel posts a
// poll's completions from the thread that submitted it. Remove queues a
// POLL_REMOVE. Wait submits what is queued and waits for completions in
// the same io_uring_enter call. Every queued entry is an interest change,
// counted by CtlCalls; every io_uring_enter, by WaitSyscalls.
type backend struct {
	ring     *ring
	multi    bool
	settings Settings
	files    fixedFiles
	registry
	call    uint64 // Wait calls so far
	minWait time.Duration
	ctl     atomic.Uint64
}

// opener returns the Open function of the multishot (multi) or one-shot
// variant, with settings s (Fixed, TaskrunFlag).
func opener(multi bool, s Settings) func(pipebench.Options) (pipebench.Mechanism, error) {
	return func(o pipebench.Options) (pipebench.Mechanism, error) { return open(o, multi, s) }
}

// Ring sizes: the SQ holds one entry per pipe up to maxSQ, so that Arm
// submits every registration in one io_uring_enter and a Wait's re-arms
// (at most one per pipe) never fill it; past maxSQ pipes Arm submits as the
// queue fills, from the same thread. The CQ holds four completions per
// pipe: a multishot poll posts one per wake-up, and when the CQ is full the
// kernel ends the poll.
const (
	minSQ, maxSQ = 64, 32768
	maxCQ        = 65536
)

func open(o pipebench.Options, multi bool, s Settings) (pipebench.Mechanism, error) {
	if o.Pipes < 0 || o.MaxFD < 0 {
		return nil, fmt.Errorf("io_uring: negative size in options (pipes %d, max fd %d)", o.Pipes, o.MaxFD)
	}
	if multi {
		if err := checkMultishot(kernelRelease()); err != nil {
			return nil, err
		}
	}
	sq := uint32(min(max(o.Pipes, minSQ), maxSQ))
	cq := uint32(min(4*int(sq), maxCQ))
	s &= pollSettings
	r, err := newRing(sq, cq, false, s)
	if err != nil {
		return nil, err
	}
	if r.features&featExtArg == 0 {
		r.close()
		return nil, errNoExtArg
	}
	if err := openMinWait(r, o.MinWait); err != nil {
		r.close()
		return nil, err
	}
	return &backend{ring: r, multi: multi, settings: s, registry: newRegistry(o.Pipes, o.MaxFD), minWait: o.MinWait}, nil
}

func (b *backend) Add(fd int, tag int32) error { return b.add(fd, tag) }

// Arm queues a POLL_ADD for every registration not armed yet and submits
// them all, from the calling thread, which must be the one that will wait
// (pipebench.Armer): as the queue fills, and once more for the rest.
func (b *backend) Arm() error {
	if err := armSettings(b.ring, &b.files, &b.registry, b.settings); err != nil {
		return err
	}
	return b.armAll(b.ring, b)
}

// arm queues a POLL_ADD for tag's registration.
func (b *backend) arm(tag int32) error {
	r := &b.regs[tag]
	fd, fixed, err := b.files.use(b.ring, r.fd)
	if err != nil {
		return err
	}
	s, err := b.ring.slot()
	if err != nil {
		return err
	}
	s.opcode, s.flags, s.fd, s.opFlags, s.userData = opPollAdd, fixed, fd, unix.POLLIN, userData(tag, r.gen)
	if b.multi {
		s.len = pollAddMulti
	}
	b.ring.push()
	b.ctl.Add(1)
	return nil
}

func (b *backend) Remove(fd int, tag int32) error {
	r, err := b.lookup(fd, tag)
	if err != nil {
		return err
	}
	if r.state == armed {
		s, err := b.ring.slot()
		if err != nil {
			return fmt.Errorf("io_uring remove fd %d: %w", fd, err)
		}
		ud := userData(tag, r.gen)
		s.opcode, s.fd, s.addr, s.userData = opPollRemove, -1, ud, ud|removeBit
		b.ring.push()
		b.ctl.Add(1)
	}
	if err := b.files.drop(b.ring, int32(fd)); err != nil {
		return fmt.Errorf("io_uring remove fd %d: %w", fd, err)
	}
	b.forget(fd, tag)
	return nil
}

// Wait reports tags whose poll completed. A one-shot poll, or a multishot
// one the kernel ended, is re-armed at the start of the next Wait, after
// the caller has read the descriptor; the re-arms go to the kernel in the
// same io_uring_enter that waits. Completions already in the CQ ring are
// reported without a system call when nothing is queued, unless a minimum
// wait is asked: a Wait that may block then goes to the kernel, which
// returns once there is a completion per ready slot, or once the minimum
// wait has passed and there is one (waitMin).
func (b *backend) Wait(ready []int32, timeout time.Duration) (int, error) {
	if len(ready) == 0 {
		return 0, waitcall.ErrNoRoom
	}
	b.call++
	// Registered files, if Arm has not registered them: the first Wait
	// registers the registrations it knows, from its thread. The checks
	// are made here, inlined, so that a Wait answered from the CQ ring
	// (most of them at one token in flight) calls nothing but reap.
	if !settled(b.ring, &b.files, b.settings) {
		if err := armSettings(b.ring, &b.files, &b.registry, b.settings); err != nil {
			return 0, err
		}
	}
	if len(b.rearm) > 0 {
		if err := b.rearmAll(b); err != nil {
			return 0, err
		}
	}
	if b.minWait > 0 && timeout != 0 {
		return waitMin(b.ring, b, ready, timeout, b.minWait, uint32(len(ready)))
	}
	if b.ring.pending() == 0 {
		if n, err := b.reap(ready); n > 0 || err != nil {
			return n, err
		}
	}
	var start time.Time
	left := timeout
	for {
		// Polls the kernel ended without a report in this call (it cancels
		// a one-shot poll whose submitting thread exited) are armed again
		// before waiting: nothing has been reported yet, so the caller has
		// nothing left to read first.
		if err := b.rearmAll(b); err != nil {
			return 0, err
		}
		_, errno := b.ring.enter(waitFor(left), true, left)
		if waitFailed(errno) {
			return 0, fmt.Errorf("io_uring_enter: %w", errno)
		}
		n, err := b.reap(ready)
		if n > 0 || err != nil || left == 0 || errno == unix.ETIME {
			return n, err
		}
		// Nothing to report yet: a signal, completions of removed
		// registrations only, or a timeout the kernel did not report
		// because the call also submitted entries (it then returns their
		// count).
		// As waitcall.RetryEINTR does, the clock starts only now, out of
		// Wait's body, so that the ordinary path reads none: such a wait
		// may last up to one extra timeout, never less than asked.
		var ok bool
		if left, ok = waitcall.Interrupted(timeout, &start); !ok {
			return 0, nil
		}
	}
}

// queue has the re-arms queued (waitMin's ringWaiter).
func (b *backend) queue([]int32) error { return b.rearmAll(b) }

// reap reports, into ready, the registered tags of the completions in the
// CQ ring, each once, and consumes every completion it has looked at. It
// stops at a completion that would need room ready does not have, leaving
// it for the next Wait.
func (b *backend) reap(ready []int32) (int, error) {
	rg := b.ring
	head := atomic.LoadUint32(rg.cqHead)
	tail := atomic.LoadUint32(rg.cqTail)
	k := 0
	var err error
	for ; head != tail && err == nil; head++ {
		c := &rg.cqes[head&rg.cqMask]
		if c.userData>>kindShift == kindFiles {
			err = updated(c)
			continue
		}
		if c.userData&removeBit != 0 {
			continue // a POLL_REMOVE's answer; ENOENT when the poll had ended
		}
		tag, r, ok := b.current(c.userData)
		if !ok {
			continue // a removed registration's
		}
		if c.res < 0 {
			r.state = free // no request is armed; the error ends the run
			if c.res == -int32(unix.ECANCELED) {
				b.disarm(tag) // the kernel cancelled it (its submitter exited)
				continue
			}
			err = fmt.Errorf("poll fd %d (tag %d): %w", r.fd, tag, unix.Errno(-c.res))
			continue
		}
		report := r.seen != b.call
		if report && k == len(ready) {
			break
		}
		if c.flags&cqeFMore == 0 {
			b.disarm(tag)
		}
		if report {
			r.seen = b.call
			ready[k] = tag
			k++
		}
	}
	storeRelease(rg.cqHead, head)
	return k, err
}

// CtlCalls counts the POLL_ADDs and POLL_REMOVEs queued and the registered
// file slots set: entries queued, not system calls (pipebench.RingQueued).
func (b *backend) CtlCalls() uint64 { return b.ctl.Load() + b.files.updates.Load() }

func (b *backend) WaitSyscalls() uint64 { return b.ring.enters }

func (b *backend) Close() error { return b.ring.close() }
