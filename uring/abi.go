package uring

// The parts of the kernel's io_uring ABI (include/uapi/linux/io_uring.h)
// that this backend uses. golang.org/x/sys/unix has the system call numbers
// and nothing else, so the layouts are written out here; abi_test.go checks
// their sizes and offsets against the header.

const (
	// Opcodes (sqe.opcode).
	opPollAdd    = 6  // IORING_OP_POLL_ADD
	opPollRemove = 7  // IORING_OP_POLL_REMOVE
	opCancel     = 14 // IORING_OP_ASYNC_CANCEL: cancels the request whose user data is in addr
	opRead       = 22 // IORING_OP_READ (Linux 5.6)
	opWrite      = 23 // IORING_OP_WRITE (Linux 5.6)
	// opReadMultishot (IORING_OP_READ_MULTISHOT, Linux 6.7) reads into a
	// buffer the kernel picks from a registered buffer ring each time the
	// descriptor has data, posting a completion per read, until the kernel
	// ends it.
	opReadMultishot = 49
	// opEpollWait (IORING_OP_EPOLL_WAIT, Linux 6.15) is an epoll_wait on
	// the epoll set in sqe.fd, into the events at sqe.addr, at most sqe.len
	// of them; its completion's res is how many it stored, or -errno. With
	// none ready it waits, by an internal poll of the set, and stores them
	// when the set turns ready.
	opEpollWait = 59
	// sqeBufferSelect (IOSQE_BUFFER_SELECT, in sqe.flags): the kernel picks
	// the read's buffer from the group in sqe.bufIndex (buf_group).
	sqeBufferSelect = 1 << 5
	// cqeFBuffer (IORING_CQE_F_BUFFER): the completion used a provided
	// buffer, whose id is in the upper 16 bits of flags.
	cqeFBuffer      = 1 << 0
	cqeBufferShift  = 16
	setupSQPoll     = 1 << 1 // IORING_SETUP_SQPOLL: a kernel thread consumes the SQ (unprivileged since 5.11)
	sqNeedWakeup    = 1 << 0 // IORING_SQ_NEED_WAKEUP, in the SQ ring's flags: the SQ thread sleeps
	sqTaskrun       = 1 << 2 // IORING_SQ_TASKRUN, in the SQ ring's flags: completions wait as task work
	enterSQWakeup   = 1 << 1 // IORING_ENTER_SQ_WAKEUP: wake the SQ thread
	enterSQWait     = 1 << 2 // IORING_ENTER_SQ_WAIT (5.10): wait for room in the SQ
	registerProbe   = 8      // IORING_REGISTER_PROBE (5.6): which opcodes the kernel has
	registerFiles   = 2      // IORING_REGISTER_FILES (5.1; -1 entries leave a slot empty since 5.5)
	registerEnable  = 12     // IORING_REGISTER_ENABLE_RINGS (5.10): start a ring set up R_DISABLED
	registerRingFDs = 20     // IORING_REGISTER_RING_FDS (5.18): register the ring's own descriptor for this task
	unregisterRing  = 21     // IORING_UNREGISTER_RING_FDS (5.18)
	// opFilesUpdate (IORING_OP_FILES_UPDATE, 5.6): sets len slots of the
	// registered file table from off on to the descriptors at addr, from
	// the submission queue, with no system call of its own.
	opFilesUpdate = 20
	// sqeFixedFile (IOSQE_FIXED_FILE): sqe.fd is an index into the
	// registered file table, not a descriptor: no descriptor lookup.
	sqeFixedFile = 1 << 0
	// sqeIOLink (IOSQE_IO_LINK): the next entry starts only once this one
	// has completed.
	sqeIOLink        = 1 << 2
	registerPbufRing = 22     // IORING_REGISTER_PBUF_RING (5.19): a ring of provided buffers
	probeOpSupported = 1 << 0 // IO_URING_OP_SUPPORTED, in io_uring_probe_op.flags

	// pollAddMulti (IORING_POLL_ADD_MULTI, in sqe.len of a POLL_ADD): the
	// poll stays armed and posts a completion per wake-up, each flagged
	// cqeFMore, until the kernel ends it (Linux 5.13).
	pollAddMulti = 1 << 0

	// cqeFMore (IORING_CQE_F_MORE): the request that posted this completion
	// will post more. A multishot poll's completion without it is its last.
	cqeFMore = 1 << 1

	// io_uring_setup flags.
	setupCQSize      = 1 << 3 // IORING_SETUP_CQSIZE: params.cqEntries is ours
	setupClamp       = 1 << 4 // IORING_SETUP_CLAMP: clamp sizes to the kernel's maximum
	setupSubmitAll   = 1 << 7 // IORING_SETUP_SUBMIT_ALL (5.18): keep submitting after a failed SQE
	setupCoopTaskrun = 1 << 8 // IORING_SETUP_COOP_TASKRUN (5.19): no IPI to post completions
	setupRDisabled   = 1 << 6 // IORING_SETUP_R_DISABLED (5.10): the ring starts disabled, until IORING_REGISTER_ENABLE_RINGS
	// setupTaskrunFlag (IORING_SETUP_TASKRUN_FLAG, 5.19): the kernel sets
	// sqTaskrun in the SQ ring's flags while completions wait as task work
	// (with COOP_TASKRUN or DEFER_TASKRUN only).
	setupTaskrunFlag = 1 << 9
	// setupSingleIssuer (IORING_SETUP_SINGLE_ISSUER, 6.0): one task submits,
	// the one that created the ring or, with R_DISABLED, enabled it.
	setupSingleIssuer = 1 << 12
	// setupDeferTaskrun (IORING_SETUP_DEFER_TASKRUN, 6.1, needs
	// SINGLE_ISSUER, not with SQPOLL): completion work waits until the
	// issuer calls io_uring_enter with GETEVENTS.
	setupDeferTaskrun = 1 << 13

	// params.features bits.
	featSingleMmap = 1 << 0 // IORING_FEAT_SINGLE_MMAP (5.4): SQ and CQ rings share one mapping
	featExtArg     = 1 << 8 // IORING_FEAT_EXT_ARG (5.11): io_uring_enter takes a timeout
	// featMinTimeout (IORING_FEAT_MIN_TIMEOUT, 6.12): io_uring_enter
	// honours geteventsArg.minWaitUsec; earlier kernels ignore the field.
	featMinTimeout = 1 << 15

	// io_uring_enter flags.
	enterGetEvents = 1 << 0 // IORING_ENTER_GETEVENTS: wait for min_complete completions
	enterExtArg    = 1 << 3 // IORING_ENTER_EXT_ARG: arg is a geteventsArg
	// enterRegisteredRing (IORING_ENTER_REGISTERED_RING, 5.18): the fd
	// argument is the index IORING_REGISTER_RING_FDS returned to this task.
	enterRegisteredRing = 1 << 4

	// mmap offsets that select which region of the ring to map.
	offSQRing = 0x0        // IORING_OFF_SQ_RING
	offCQRing = 0x8000000  // IORING_OFF_CQ_RING
	offSQEs   = 0x10000000 // IORING_OFF_SQES
)

// sqringOffsets is struct io_sqring_offsets: where, in the SQ ring mapping,
// each field lives.
type sqringOffsets struct {
	head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
	userAddr                                                        uint64
}

// cqringOffsets is struct io_cqring_offsets.
type cqringOffsets struct {
	head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
	userAddr                                                        uint64
}

// params is struct io_uring_params, passed to io_uring_setup and filled in
// by it.
type params struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFD uint32
	resv                                                                   [3]uint32
	sqOff                                                                  sqringOffsets
	cqOff                                                                  cqringOffsets
}

// sqe is struct io_uring_sqe (64 bytes), with the union members a poll
// needs: opFlags is poll32_events, addr names the request a POLL_REMOVE
// cancels, len carries the POLL_ADD flags.
type sqe struct {
	opcode      uint8
	flags       uint8
	ioprio      uint16
	fd          int32
	off         uint64
	addr        uint64
	len         uint32
	opFlags     uint32
	userData    uint64
	bufIndex    uint16
	personality uint16
	spliceFDIn  int32
	addr3       uint64
	_           uint64
}

// cqe is struct io_uring_cqe (16 bytes): the user data of the request, its
// result (a poll mask, or -errno) and flags.
type cqe struct {
	userData uint64
	res      int32
	flags    uint32
}

// geteventsArg is struct io_uring_getevents_arg, what io_uring_enter takes
// with IORING_ENTER_EXT_ARG. ts holds the address of a kernelTimespec.
type geteventsArg struct {
	sigmask     uint64
	sigmaskSize uint32
	minWaitUsec uint32
	ts          uint64
}

// kernelTimespec is struct __kernel_timespec: 64-bit fields on every
// architecture, unlike unix.Timespec on 32-bit ones.
type kernelTimespec struct {
	sec, nsec int64
}

// bufReg is struct io_uring_buf_reg, what IORING_REGISTER_PBUF_RING takes:
// the address of the buffer ring, its entries (a power of two), its group.
type bufReg struct {
	ringAddr    uint64
	ringEntries uint32
	bgid        uint16
	flags       uint16
	resv        [3]uint64
}

// buf is struct io_uring_buf, one entry of a buffer ring. The ring's tail
// is the resv field of its first entry (struct io_uring_buf_ring).
type buf struct {
	addr uint64
	len  uint32
	bid  uint16
	resv uint16
}

// probe is struct io_uring_probe with room for every opcode up to 255:
// IORING_REGISTER_PROBE fills it.
type probe struct {
	lastOp uint8
	opsLen uint8
	resv   uint16
	resv2  [3]uint32
	ops    [256]probeOp
}

// probeOp is struct io_uring_probe_op.
type probeOp struct {
	op    uint8
	resv  uint8
	flags uint16
	resv2 uint32
}

// rsrcUpdate is struct io_uring_rsrc_update, what IORING_REGISTER_RING_FDS
// takes: offset is the index wanted (all ones: any free one, written back),
// data the ring's descriptor.
type rsrcUpdate struct {
	offset uint32
	resv   uint32
	data   uint64
}
