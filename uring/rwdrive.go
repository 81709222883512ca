package uring

import (
	"fmt"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/pipebench"
)

// Run moves tokens until the run ends: it reaps every completion in the
// ring (reads hand their bytes to the worker, which queues the forwarded
// tokens' writes through Send; writes are counted), queues the batch's
// credit word and the re-arms, and hands all of it to the kernel in the
// io_uring_enter that waits for the next completions. Then it cancels
// every request still in the kernel and waits for their last completions,
// so that nothing reads a pipe once it has returned (the Loop contract).
func (b *rwBackend) Run(s *pipebench.Surface) error {
	w := s.Workers(1)[0]
	w.QueueWrites(b)
	b.closing = false
	b.slots = make([][8]byte, maxWrites)
	b.lens = make([]uint8, maxWrites)
	b.dest = make([]int32, maxWrites)
	b.inUse = make([]bool, maxWrites)
	b.free = make([]uint32, maxWrites)
	for i := range b.free {
		b.free[i] = uint32(maxWrites - 1 - i)
	}
	var err error
	if b.settings&RegRing != 0 {
		// Registered for this thread only, and undone on it before Run
		// returns: the thread goes back to the runtime's pool after the
		// run, and its reference would keep the ring alive.
		err = b.ring.registerRing()
	}
	if err == nil {
		err = b.loop(s, w)
	}
	if e := b.finish(w); err == nil {
		err = e
	}
	if e := b.ring.unregisterRing(); err == nil {
		err = e
	}
	return err
}

// loop is the hot loop: no allocation, lock, channel operation or clock
// read; one io_uring_enter per batch, or none when completions are in the
// ring already (and, with SQPOLL, none to submit unless the kernel's
// thread sleeps).
func (b *rwBackend) loop(s *pipebench.Surface, w *pipebench.Worker) error {
	rg := b.ring
	last := rg.enters
	for {
		n, err := b.reap(w)
		if err == nil {
			err = b.credit(w)
		}
		if err == nil {
			err = b.rearmAll(b)
		}
		w.Entered(rg.enters-last, uint64(n))
		last = rg.enters
		if err != nil || s.Stopped() {
			return err
		}
		if n > 0 {
			if rg.sqpoll {
				if rg.pending() > 0 && rg.sleeping() {
					if _, e := rg.enter(0, false, 0); e != 0 && e != unix.EINTR {
						return fmt.Errorf("io_uring_enter (wake the SQ thread): %w", e)
					}
				}
				continue
			}
			// Nothing to hand over: look at the ring again before
			// waiting, since more may have come in; with TASKRUN_FLAG
			// only when it holds some (flagged task work needs the wait's
			// GETEVENTS).
			if rg.pending() == 0 && (!rg.taskrunFlag || rg.cqReady()) {
				continue
			}
		}
		// Wait for the completions of the writes handed over now (a write
		// to a pipe with room completes as it is submitted) and one more,
		// never for more than half the completion queue holds.
		min := min(b.queued+1, uint32(len(rg.cqes)/2))
		b.queued = 0
		switch _, e := rg.enter(min, true, s.WaitTimeout); e {
		case 0, unix.ETIME, unix.EINTR, unix.EBUSY:
		default:
			return fmt.Errorf("io_uring_enter: %w", e)
		}
	}
}

// reap handles every completion in the CQ ring and returns how many there
// were. A read's bytes go to the worker (Got), which queues the writes
// of the tokens it forwards; its buffer goes back to the ring at once. A
// read the kernel ended is armed again by the caller (rearmAll), unless
// the run is ending. It stops at the first failure, which ends the run.
func (b *rwBackend) reap(w *pipebench.Worker) (int, error) {
	rg := b.ring
	head := atomic.LoadUint32(rg.cqHead)
	tail := atomic.LoadUint32(rg.cqTail)
	n := 0
	var writes uint64
	var err error
	for ; head != tail && err == nil; head++ {
		c := rg.cqes[head&rg.cqMask]
		n++
		switch c.userData >> kindShift {
		case kindRead:
			err = b.read(w, &c)
		case kindWrite:
			var ok bool
			ok, err = b.wrote(&c)
			if ok {
				writes++
			}
		case kindFiles:
			err = updated(&c)
		}
	}
	storeRelease(rg.cqHead, head)
	if b.bufs != nil {
		b.bufs.publish()
	}
	w.Wrote(writes)
	return n, err
}

// read handles a read's completion.
func (b *rwBackend) read(w *pipebench.Worker, c *cqe) error {
	if c.flags&cqeFBuffer == 0 {
		return b.handleRead(w, c, nil)
	}
	id := uint16(c.flags >> cqeBufferShift)
	err := b.handleRead(w, c, b.bufs.get(id, max(int(c.res), 0)))
	b.bufs.put(id) // its bytes are counted and copied
	return err
}

// handleRead handles a read's completion whose bytes are in p, or in the
// tag's own buffer when p is nil (a plain read).
func (b *rwBackend) handleRead(w *pipebench.Worker, c *cqe, p []byte) error {
	tag, r, ok := b.current(c.userData)
	if !ok {
		return nil // a removed registration's
	}
	if c.flags&cqeFMore == 0 {
		b.disarm(tag)
	}
	switch {
	case c.res > 0:
		if p == nil {
			p = b.own[tag][:c.res]
		}
		return w.Got(int(tag), p)
	case c.res == 0 && b.closing:
		return nil // the writer may go once the window has closed
	case c.res == 0:
		return &pipebench.EOFError{Pipe: int(tag)}
	case c.res == -int32(unix.ENOBUFS), c.res == -int32(unix.ECANCELED):
		// Every buffer was in use (the multishot read ends), or the kernel
		// cancelled the read: it is armed again.
		return nil
	}
	return fmt.Errorf("io_uring read pipe %d (fd %d): %w", tag, r.fd, unix.Errno(-c.res))
}

// wrote handles a write's completion and frees its slot; ok says that it
// wrote the whole token or credit word.
func (b *rwBackend) wrote(c *cqe) (ok bool, err error) {
	slot := uint32(c.userData)
	b.free = append(b.free, slot)
	b.inUse[slot] = false
	n, want := c.res, int32(b.lens[slot])
	switch {
	case n == want:
		return true, nil
	case n == -int32(unix.ECANCELED):
		return false, nil // cancelled at the end of the run: not written
	case n < 0:
		return false, fmt.Errorf("io_uring write to %s: %w", b.destName(slot), unix.Errno(-n))
	}
	return false, fmt.Errorf("io_uring write to %s: %d bytes of %d", b.destName(slot), n, want)
}

func (b *rwBackend) destName(slot uint32) string {
	if j := b.dest[slot]; j >= 0 {
		return fmt.Sprintf("pipe %d", j)
	}
	return "the credit pipe"
}

// Send queues a write of tok to fd, pipe's write end (pipebench.Sender).
// At the end of the run (finish) it queues nothing: the token was received
// and is not sent on.
func (b *rwBackend) Send(pipe int, fd int32, tok []byte) error {
	if b.closing {
		return nil
	}
	return b.queueWrite(int32(pipe), fd, tok)
}

// credit queues the write of the batch's credit word, if it owes one.
func (b *rwBackend) credit(w *pipebench.Worker) error {
	fd, ok := w.PutCredit(&b.cbuf)
	if !ok {
		return nil
	}
	return b.queueWrite(-1, fd, b.cbuf[:])
}

// queueWrite copies p into a free slot and queues its write to fd (pipe
// dest, or -1 for the credit pipe).
func (b *rwBackend) queueWrite(dest, fd int32, p []byte) error {
	k := len(b.free) - 1
	if k < 0 {
		return fmt.Errorf("io_uring: %d writes in flight, none completed", maxWrites)
	}
	slot := b.free[k]
	b.free = b.free[:k]
	b.inUse[slot] = true
	copy(b.slots[slot][:], p)
	b.lens[slot], b.dest[slot] = uint8(len(p)), dest
	fd, fixed, err := b.files.use(b.ring, fd)
	if err != nil {
		return err
	}
	s, err := b.ring.slot()
	if err != nil {
		return err
	}
	s.opcode, s.flags, s.fd, s.off, s.userData = opWrite, fixed, fd, ^uint64(0), kindWrite<<kindShift|uint64(slot)
	s.addr, s.len = uint64(uintptr(unsafe.Pointer(&b.slots[slot][0]))), uint32(len(p))
	b.ring.push()
	if b.settings&Batch == 0 && !b.ring.sqpoll {
		// One io_uring_enter per write, to measure what batching saves.
		return b.ring.submit(0)
	}
	b.queued++
	return nil
}

// finishFor bounds the end of a run: every request cancelled must have
// posted its last completion by then.
const finishFor = 5 * time.Second

// finish cancels every read still armed and every write still in flight,
// and reaps until each has posted its last completion, counting the
// tokens the reads brought (received, not sent on) and the writes that
// completed: once it returns, the kernel reads no pipe for this backend.
// It goes on after a failure, which it returns, until the kernel holds
// nothing or finishFor has passed.
func (b *rwBackend) finish(w *pipebench.Worker) error {
	b.closing = true
	rg := b.ring
	last := rg.enters
	var first error
	keep := func(err error) {
		if first == nil && err != nil {
			first = err
		}
	}
	for tag := range b.regs {
		if r := &b.regs[tag]; r.state == armed {
			keep(b.cancel(userData(int32(tag), r.gen)))
		}
	}
	for slot, busy := range b.inUse {
		if busy {
			keep(b.cancel(kindWrite<<kindShift | uint64(slot)))
		}
	}
	deadline := time.Now().Add(finishFor)
	for b.inKernel() > 0 {
		if time.Now().After(deadline) {
			keep(fmt.Errorf("io_uring: %d requests still in the kernel %v after cancelling them", b.inKernel(), finishFor))
			break
		}
		if _, e := rg.enter(1, true, 10*time.Millisecond); e != 0 && e != unix.ETIME && e != unix.EINTR && e != unix.EBUSY {
			keep(fmt.Errorf("io_uring_enter (cancel at the end of the run): %w", e))
		}
		n, err := b.reap(w)
		keep(err)
		w.Entered(rg.enters-last, uint64(n))
		last = rg.enters
	}
	return first
}

// inKernel counts the reads still armed and the writes still in flight.
func (b *rwBackend) inKernel() int {
	n := len(b.slots) - len(b.free)
	for i := range b.regs {
		if b.regs[i].state == armed {
			n++
		}
	}
	return n
}
