package uring

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/internal/waitcall"
)

// ring is one io_uring instance: its descriptor and the memory it shares
// with the kernel. The submission queue (SQ) is ours to fill: we write an
// entry, then publish it by storing the tail; the kernel consumes entries
// and advances the head. The completion queue (CQ) is the other way round.
// Heads and tails are free-running 32-bit counters, masked to index the
// arrays, and are read and written with atomics because the other side
// reads or writes them concurrently. The SQ index array is filled with the
// identity once, so that slot i of the SQE array is always ring entry i.
type ring struct {
	fd       int
	features uint32

	sqMem, cqMem, sqeMem []byte // cqMem is sqMem when shared
	shared               bool   // IORING_FEAT_SINGLE_MMAP: one mapping holds both rings
	sqHead, sqTail       *uint32
	sqMask, sqEntries    uint32
	sqes                 []sqe
	tail                 uint32 // our copy of *sqTail
	held                 uint32 // entries filled past tail, published by the next push
	enters               uint64 // io_uring_enter calls made
	// sqpoll: a kernel thread (iou-sqp-PID) consumes the SQ, so that a
	// submission is a store of the tail and a system call only when that
	// thread sleeps (sqFlags has sqNeedWakeup).
	sqpoll  bool
	sqFlags *uint32

	cqHead, cqTail *uint32
	cqMask         uint32
	cqes           []cqe

	// arg and ts are handed to io_uring_enter for a timed wait or one with
	// a minimum wait; arg.ts holds &ts (or 0: no timeout), which stays
	// valid because the ring is never moved (Go's heap does not move
	// objects) and lives as long as the backend.
	arg geteventsArg
	ts  kernelTimespec

	// regIndex is the ring's index among the registered ring descriptors
	// of the thread that registered it (registerRing), -1 when it has none:
	// io_uring_enter then takes the index and IORING_ENTER_REGISTERED_RING.
	regIndex int
	// taskrunFlag: the kernel flags the SQ ring (sqTaskrun) while
	// completions wait as task work.
	taskrunFlag bool
	// enabled: a ring set up disabled (Defer) has been enabled.
	enabled bool
}

// setupFlags are tried in order until the kernel accepts one: the first
// needs Linux 5.19, the second any kernel with io_uring. With SQPOLL the
// kernel refuses COOP_TASKRUN (its thread posts the completions). A ring
// with Defer or TaskrunFlag takes the first, plus their flags, or none.
var (
	setupFlags = []uint32{
		setupCQSize | setupClamp | setupSubmitAll | setupCoopTaskrun,
		setupCQSize | setupClamp,
	}
	sqpollFlags = []uint32{
		setupSQPoll | setupCQSize | setupClamp | setupSubmitAll,
		setupSQPoll | setupCQSize | setupClamp,
	}
)

// settingFlags are the io_uring_setup flags of the settings in s. Defer
// starts the ring disabled, so that its one issuer is the thread that
// enables it (enable), not the one that made it.
func settingFlags(s Settings) uint32 {
	var f uint32
	if s&Defer != 0 {
		f |= setupSingleIssuer | setupDeferTaskrun | setupRDisabled
	}
	if s&TaskrunFlag != 0 {
		f |= setupTaskrunFlag
	}
	return f
}

// setupCall is io_uring_setup; tests replace it to play a kernel that
// lacks a flag.
var setupCall = setup

// registerCall is io_uring_register; tests replace it likewise.
var registerCall = func(fd int, opcode uintptr, arg unsafe.Pointer, nr uintptr) unix.Errno {
	_, _, e := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(fd), opcode, uintptr(arg), nr, 0, 0)
	return e
}

// newRing makes a ring with at least sqEntries submission slots and
// cqEntries completion slots (the kernel rounds both up to powers of two
// and clamps them to its maximum) and maps its memory; with sqpoll, a
// kernel thread of this process consumes its submission queue. The setup
// flags of s (Defer, TaskrunFlag) are asked for as they are: a kernel that
// refuses one fails with an *errKernel naming it.
func newRing(sqEntries, cqEntries uint32, sqpoll bool, s Settings) (*ring, error) {
	var p params
	var fd int
	var errno unix.Errno
	tries := setupFlags
	if sqpoll {
		tries = sqpollFlags
	}
	extra := settingFlags(s)
	if extra != 0 {
		tries = tries[:1]
	}
	for _, flags := range tries {
		p = params{flags: flags | extra, cqEntries: cqEntries}
		fd, errno = setupCall(sqEntries, &p)
		if errno != unix.EINVAL {
			break
		}
	}
	if errno == unix.EINVAL && extra != 0 {
		return nil, refusedFlag(sqEntries, tries[0], s)
	}
	if errno != 0 {
		return nil, setupError(sqEntries, errno)
	}
	r := &ring{fd: fd, features: p.features, sqpoll: sqpoll, regIndex: -1, taskrunFlag: s&TaskrunFlag != 0}
	if err := r.mapRings(&p); err != nil {
		r.close()
		return nil, err
	}
	return r, nil
}

// refusedFlag names the setting whose flags the kernel refused: the first
// whose flags, alone beside the base ones, it refuses again.
func refusedFlag(entries, baseFlags uint32, s Settings) error {
	for _, bit := range []Settings{Defer, TaskrunFlag} {
		if s&bit == 0 {
			continue
		}
		p := params{flags: baseFlags | settingFlags(bit), cqEntries: 2 * entries}
		fd, e := setupCall(entries, &p)
		if e == 0 {
			unix.Close(fd)
			continue
		}
		return &errKernel{settingOf(bit), fmt.Errorf("io_uring_setup: %w", e)}
	}
	// Each alone is accepted, not both: name the pair.
	return &errKernel{settingOf(Defer), fmt.Errorf("io_uring_setup with IORING_SETUP_TASKRUN_FLAG: %w", unix.EINVAL)}
}

func setup(entries uint32, p *params) (int, unix.Errno) {
	fd, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, uintptr(entries), uintptr(unsafe.Pointer(p)), 0)
	return int(fd), e
}

// mapRings maps the SQ ring, the CQ ring (the same mapping when the kernel
// has IORING_FEAT_SINGLE_MMAP) and the SQE array, and points the ring's
// fields into them.
func (r *ring) mapRings(p *params) error {
	sqSize := int(p.sqOff.array + p.sqEntries*4)
	cqSize := int(p.cqOff.cqes + p.cqEntries*uint32(unsafe.Sizeof(cqe{})))
	r.shared = p.features&featSingleMmap != 0
	if r.shared {
		sqSize = max(sqSize, cqSize)
	}
	var err error
	if r.sqMem, err = r.mmap(offSQRing, sqSize); err != nil {
		return err
	}
	if r.shared {
		r.cqMem = r.sqMem
	} else if r.cqMem, err = r.mmap(offCQRing, cqSize); err != nil {
		return err
	}
	if r.sqeMem, err = r.mmap(offSQEs, int(p.sqEntries)*int(unsafe.Sizeof(sqe{}))); err != nil {
		return err
	}

	r.sqHead = word(r.sqMem, p.sqOff.head)
	r.sqTail = word(r.sqMem, p.sqOff.tail)
	r.sqFlags = word(r.sqMem, p.sqOff.flags)
	r.sqMask = *word(r.sqMem, p.sqOff.ringMask)
	r.sqEntries = *word(r.sqMem, p.sqOff.ringEntries)
	r.sqes = unsafe.Slice((*sqe)(unsafe.Pointer(&r.sqeMem[0])), r.sqEntries)
	array := unsafe.Slice(word(r.sqMem, p.sqOff.array), r.sqEntries)
	for i := range array {
		array[i] = uint32(i)
	}
	r.tail = atomic.LoadUint32(r.sqTail)

	r.cqHead = word(r.cqMem, p.cqOff.head)
	r.cqTail = word(r.cqMem, p.cqOff.tail)
	r.cqMask = *word(r.cqMem, p.cqOff.ringMask)
	entries := *word(r.cqMem, p.cqOff.ringEntries)
	r.cqes = unsafe.Slice((*cqe)(unsafe.Pointer(&r.cqMem[p.cqOff.cqes])), entries)
	return nil
}

func (r *ring) mmap(offset int64, size int) ([]byte, error) {
	b, err := unix.Mmap(r.fd, offset, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return nil, fmt.Errorf("mmap io_uring region %#x (%d bytes): %w", offset, size, err)
	}
	return b, nil
}

// word points at the 32-bit field at off in a ring mapping.
func word(mem []byte, off uint32) *uint32 { return (*uint32)(unsafe.Pointer(&mem[off])) }

// cqReady says whether the CQ ring holds completions not reaped yet.
func (r *ring) cqReady() bool { return atomic.LoadUint32(r.cqTail) != atomic.LoadUint32(r.cqHead) }

// pending is how many queued entries the kernel has not consumed yet.
func (r *ring) pending() uint32 { return r.tail - atomic.LoadUint32(r.sqHead) }

// slot returns the next free submission entry, zeroed, submitting what is
// queued first if the queue is full. The caller fills it and calls push,
// or hold.
func (r *ring) slot() (*sqe, error) {
	if err := r.submit(r.sqEntries - 1 - r.held); err != nil {
		return nil, err
	}
	s := &r.sqes[(r.tail+r.held)&r.sqMask]
	*s = sqe{}
	return s, nil
}

// hold keeps the entry slot returned for the next push to publish with its
// own: a linked pair reaches the kernel in one piece, so that an SQPOLL
// thread never takes the first without the second.
func (r *ring) hold() { r.held++ }

// submit hands queued entries to the kernel, without waiting for any
// completion, until at most left remain queued. With SQPOLL the kernel's
// thread takes them on its own: submit only wakes it if it sleeps, and
// waits for it to make room when the queue is full.
func (r *ring) submit(left uint32) error {
	if r.sqpoll {
		for r.pending()+r.held >= r.sqEntries || r.pending() > left && r.sleeping() {
			if _, e := r.enter(0, false, 0); e != 0 && e != unix.EINTR {
				return fmt.Errorf("io_uring_enter (wake the SQ thread, %d queued): %w", r.pending(), e)
			}
			if r.pending()+r.held < r.sqEntries {
				break
			}
		}
		return nil
	}
	for r.pending() > left {
		n, e := r.enter(0, false, 0)
		if e != 0 && e != unix.EINTR {
			return fmt.Errorf("io_uring_enter (submit %d queued): %w", r.pending(), e)
		}
		if n == 0 && e == 0 {
			return fmt.Errorf("io_uring_enter (submit %d queued): the kernel took none", r.pending())
		}
	}
	return nil
}

// push publishes the entry slot returned: the kernel sees it at the next
// io_uring_enter.
func (r *ring) push() {
	r.tail += r.held + 1
	r.held = 0
	storeRelease(r.sqTail, r.tail)
}

// enter submits every queued entry and, if wait is set, waits until at
// least minComplete completions are in the CQ ring or timeout passes
// (timeout > 0 only; 0 returns at once, after the kernel has posted the
// completions it owes this thread; < 0 has no limit). It returns the number
// of entries submitted, or the error: ETIME when the timeout passed, EINTR
// when a signal arrived. When entries were submitted the kernel returns
// their count even if the wait then timed out or was interrupted.
//
// It is a raw system call, as the Mechanism contract requires of a wait: the
// thread keeps its P while it sleeps (waitcall.Raw6, one frame to the
// kernel). A signal ends the wait with EINTR
// (io_uring_enter is not restarted), and Wait's loop then calls rearmAll
// and reap, where a goroutine the runtime asked to stop does so.
func (r *ring) enter(minComplete uint32, wait bool, timeout time.Duration) (int, unix.Errno) {
	return r.enterMin(minComplete, wait, timeout, 0)
}

// enterMin is enter with a minimum wait (minWait > 0, whole microseconds;
// the kernel must have IORING_FEAT_MIN_TIMEOUT): the wait returns once
// minComplete completions are in the CQ ring, or once minWait has passed
// and at least one is, or at the first completion after that, or at the
// timeout (minwait.go).
func (r *ring) enterMin(minComplete uint32, wait bool, timeout, minWait time.Duration) (int, unix.Errno) {
	var flags, argp, argsz uintptr
	if r.sqpoll {
		// The tail stored by push and this load are both sequentially
		// consistent: the kernel's thread either sees the new tail before
		// it sleeps or has set the flag by now.
		if atomic.LoadUint32(r.sqFlags)&sqNeedWakeup != 0 {
			flags |= enterSQWakeup
		}
		if !wait {
			flags |= enterSQWait // called to make room in the queue
		}
	}
	if wait {
		flags = enterGetEvents
		if timeout > 0 || minWait > 0 {
			r.arg.ts, r.arg.minWaitUsec = 0, uint32(minWait/time.Microsecond)
			if timeout > 0 {
				r.ts = kernelTimespec{sec: int64(timeout / time.Second), nsec: int64(timeout % time.Second)}
				r.arg.ts = uint64(uintptr(unsafe.Pointer(&r.ts)))
			}
			flags |= enterExtArg
			argp, argsz = uintptr(unsafe.Pointer(&r.arg)), unsafe.Sizeof(r.arg)
		}
	}
	fd := uintptr(r.fd)
	if r.regIndex >= 0 {
		fd = uintptr(r.regIndex)
		flags |= enterRegisteredRing
	}
	r.enters++
	return waitcall.Split(waitcall.Raw6(unix.SYS_IO_URING_ENTER, fd, uintptr(r.pending()), uintptr(minComplete), flags, argp, argsz))
}

// waitFor is how many completions a Wait's io_uring_enter with timeout
// left waits for: one, or none when it may not block.
func waitFor(left time.Duration) uint32 {
	if left == 0 {
		return 0
	}
	return 1
}

// waitFailed says whether a waiting io_uring_enter failed: a signal
// (EINTR), the timeout (ETIME) and a full CQ ring the kernel is flushing
// (EBUSY) are part of waiting.
func waitFailed(e unix.Errno) bool {
	return e != 0 && e != unix.ETIME && e != unix.EINTR && e != unix.EBUSY
}

// taskWork says whether the kernel has flagged completions waiting as
// task work (TaskrunFlag), which an io_uring_enter with GETEVENTS runs.
func (r *ring) taskWork() bool {
	return atomic.LoadUint32(r.sqFlags)&sqTaskrun != 0
}

// enable starts a ring set up disabled (Defer): the calling thread
// becomes its one issuer.
func (r *ring) enable() error {
	if e := r.register(registerEnable, nil, 0); e != 0 {
		return fmt.Errorf("io_uring_register enable rings: %w", e)
	}
	return nil
}

// registerRing registers the ring's descriptor for the calling thread
// (RegRing): from then on, io_uring_enter on this thread names the ring by
// its index. It must be undone by unregisterRing on the same thread, or
// the thread's reference keeps the ring, and what it holds, alive.
func (r *ring) registerRing() error {
	u := rsrcUpdate{offset: ^uint32(0), data: uint64(r.fd)}
	if e := r.register(registerRingFDs, unsafe.Pointer(&u), 1); e != 0 {
		return &errKernel{settingOf(RegRing), fmt.Errorf("io_uring_register ring fds: %w", e)}
	}
	r.regIndex = int(u.offset)
	return nil
}

// unregisterRing undoes registerRing, on the thread that made it.
func (r *ring) unregisterRing() error {
	if r.regIndex < 0 {
		return nil
	}
	u := rsrcUpdate{offset: uint32(r.regIndex)}
	r.regIndex = -1
	if e := r.register(unregisterRing, unsafe.Pointer(&u), 1); e != 0 {
		return fmt.Errorf("io_uring_register unregister ring fd: %w", e)
	}
	return nil
}

// sleeping says whether the SQ thread (sqpoll) has gone to sleep and needs
// an io_uring_enter to take what is queued.
func (r *ring) sleeping() bool {
	return r.sqpoll && atomic.LoadUint32(r.sqFlags)&sqNeedWakeup != 0
}

// register is io_uring_register(2): opcode with nr arguments at arg.
func (r *ring) register(opcode uintptr, arg unsafe.Pointer, nr uintptr) unix.Errno {
	return registerCall(r.fd, opcode, arg, nr)
}

// supports asks the kernel (IORING_REGISTER_PROBE, Linux 5.6) whether it
// has opcode op.
func (r *ring) supports(op uint8) (bool, error) {
	var p probe
	if e := r.register(registerProbe, unsafe.Pointer(&p), uintptr(len(p.ops))); e != 0 {
		return false, fmt.Errorf("io_uring_register probe: %w", e)
	}
	return op <= p.lastOp && p.ops[op].flags&probeOpSupported != 0, nil
}

// close unmaps the ring and closes its descriptor; the kernel then cancels
// every request still armed.
func (r *ring) close() error {
	if r.sqeMem != nil {
		unix.Munmap(r.sqeMem)
	}
	if r.cqMem != nil && !r.shared {
		unix.Munmap(r.cqMem)
	}
	if r.sqMem != nil {
		unix.Munmap(r.sqMem)
	}
	r.sqeMem, r.cqMem, r.sqMem = nil, nil, nil
	if r.fd < 0 {
		return nil
	}
	err := unix.Close(r.fd)
	r.fd = -1
	if err != nil {
		return fmt.Errorf("close io_uring fd: %w", err)
	}
	return nil
}

// sqThread is the id of the ring's SQPOLL thread, from
// /proc/self/fdinfo/FD (its SqThread line), or 0 when it has none or the
// line is missing.
func (r *ring) sqThread() int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/self/fdinfo/%d", r.fd))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "SqThread:"); ok {
			if tid, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && tid > 0 {
				return tid
			}
		}
	}
	return 0
}
