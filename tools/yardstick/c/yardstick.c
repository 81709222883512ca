/*
 * yardstick: a plain C program that makes the system calls of pipebench's
 * reader loop and writers, so that the harness's own cost can be measured
 * against it. See ../README.md. Written from pipebench's workload as the
 * repository's README.md describes it ("What a run does"), not from
 * epoll_pipe_bench.
 *
 *   yardstick [-n pipes] [-l tokens] [-b epoll|epoll-et|poll|select|uring]
 *             [-writer self|thread|process] [-route random|next] [-seed S]
 *             [-d duration] [-i interval] [-warmup K]
 *
 * The workload is pipebench's: N pipes made with pipe2(O_NONBLOCK), every
 * read end registered for readability, L one-byte tokens in flight (0: a
 * writer that never waits). The reader waits (epoll_pwait, ppoll, pselect6
 * or io_uring_enter, each with a 100 ms timeout), reads every reported pipe
 * (once, up to 1024 bytes: one event; edge-triggered backends read until a
 * short read), and
 *   -writer self:    writes each token it read, one byte a write, into the
 *                    next pipe (xorshift64* route reduced by multiply-shift);
 *   -writer thread:  returns the tokens it read as one 8-byte credit word
 *                    per readiness call to a writer thread, which writes one
 *                    token per credit and blocks reading credits;
 *   -writer process: the same writer in a forked process that holds only the
 *                    write ends (sent to it in batches over a socket), so
 *                    that each process holds about N descriptors.
 * With -l 0 the writer writes without waiting, counts the writes that find a
 * pipe full, and looks for the stop word every 1024 writes; no credits.
 * The reader publishes its counters once per readiness call; the main thread
 * prints "N evts/sec S samples per call" every interval, then a summary and
 * the token accounting (sent = received + drained at teardown).
 *
 * Build: gcc -O2 -std=c11 -Wall -Wextra -Werror -pthread -o yardstick yardstick.c
 */
#define _GNU_SOURCE
#define PROG "yardstick"
#include "common.h"

#include <fcntl.h>
#include <linux/io_uring.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#endif
#ifndef __NR_io_uring_enter
#define __NR_io_uring_enter 426
#endif

enum { READ_SIZE = 1024 };          /* one read takes at most this much */
enum { MAX_EVENTS = 65536 };        /* epoll_wait reports at most this many */
enum { MAX_IN_FLIGHT = 4096 };      /* as pipebench's -l bound */
enum { MAX_PIPES = 1000000 };
enum { CHECK_EVERY = 1024 };        /* unbounded writes between looks for the stop word */
enum { BATCH_FDS = 250 };           /* write ends per message to the writer process */
static const int WAIT_TIMEOUT_MS = 100;

enum backend { B_EPOLL, B_EPOLL_ET, B_POLL, B_SELECT, B_URING };
static const char *const backend_names[] = {"epoll", "epoll-et", "poll", "select", "uring"};
enum writer { W_SELF, W_THREAD, W_PROCESS };
static const char *const writer_names[] = {"self", "thread", "process"};

/* How a bounded writer sleeps until credits come back (-credit-wait):
 * pipebench's choice (auto) is ppoll then read for a writer thread, read
 * alone for a writer process (internal/tokens/syscalls.go says why). */
enum credit_wait { CW_AUTO, CW_READ, CW_PPOLL };
static const char *const credit_wait_names[] = {"auto", "read", "ppoll"};

struct config {
	int pipes, in_flight, warmup; /* in_flight 0: unbounded */
	enum backend backend;
	enum writer writer;
	enum credit_wait credit_wait;
	int writer_threads; /* threads of the writer process (-writer-threads) */
	int64_t tick_ns;    /* -tick: a thread in the reader's process wakes this often */
	int route_next;
	uint64_t seed;
	int64_t duration_ns, interval_ns;
};

/* ---- counters: written by the reader once per call, read by main -------- */

struct counts {
	uint64_t events, tokens, calls, empty, reads, writes, spurious;
};

/*
 * A sequence lock: seq is odd while the reader publishes. On x86 every
 * store and load here is a plain mov; the fences only stop the compiler.
 */
static struct {
	atomic_uint_fast64_t seq;
	_Atomic uint64_t events, tokens, calls, empty, reads, writes, spurious;
} ctr;

#define STORE(f, v) atomic_store_explicit(&ctr.f, (v), memory_order_relaxed)
#define LOAD(f) atomic_load_explicit(&ctr.f, memory_order_relaxed)

static inline void publish(const struct counts *c)
{
	uint64_t s = atomic_load_explicit(&ctr.seq, memory_order_relaxed);
	atomic_store_explicit(&ctr.seq, s + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	STORE(events, c->events);
	STORE(tokens, c->tokens);
	STORE(calls, c->calls);
	STORE(empty, c->empty);
	STORE(reads, c->reads);
	STORE(writes, c->writes);
	STORE(spurious, c->spurious);
	atomic_store_explicit(&ctr.seq, s + 2, memory_order_release);
}

static struct counts snapshot(void)
{
	for (;;) {
		uint64_t s = atomic_load_explicit(&ctr.seq, memory_order_acquire);
		if (s & 1) {
			sched_yield();
			continue;
		}
		struct counts c = {LOAD(events), LOAD(tokens), LOAD(calls), LOAD(empty),
				   LOAD(reads), LOAD(writes), LOAD(spurious)};
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&ctr.seq, memory_order_relaxed) == s)
			return c;
	}
}

/* ---- the pipes ------------------------------------------------------------- */

static int npipes;
static int *rfds, *wfds;        /* wfds: self and thread mode only */
static int32_t *ready;          /* tags (pipe indices) reported by a wait */

/* ---- io_uring: the ring, over the raw system calls ------------------------ */

/*
 * One ring, as pipebench's uring backend makes it: one multishot
 * IORING_OP_POLL_ADD per read end, queued at setup and submitted by the
 * reader's first io_uring_enter (completions are posted by the thread that
 * submitted the request); a poll whose completion lacks IORING_CQE_F_MORE
 * has ended and is queued again at the start of the next wait; completions
 * already in the CQ ring are reaped with no system call; io_uring_enter
 * (GETEVENTS, min_complete 1, EXT_ARG timeout 100 ms) waits only when there
 * is none, and submits what is queued in the same call.
 */
enum { U_ARMED = 1, U_DISARMED = 2 };
enum { U_MIN_SQ = 64, U_MAX_SQ = 32768, U_MAX_CQ = 65536 };

static struct {
	int fd;
	void *sq_mem, *cq_mem, *sqe_mem;
	size_t sq_size, cq_size, sqe_size;
	unsigned *sq_head, *sq_tail, sq_mask, sq_entries, tail;
	struct io_uring_sqe *sqes;
	unsigned *cq_head, *cq_tail, cq_mask;
	struct io_uring_cqe *cqes;
	struct io_uring_getevents_arg arg;
	struct __kernel_timespec ts;
	uint8_t *state;   /* by tag: U_ARMED or U_DISARMED */
	uint8_t *listed;  /* by tag: in rearm[] */
	uint64_t *seen;   /* by tag: the wait call that last reported it */
	int32_t *rearm;
	int nrearm;
	uint64_t call;
} ur = {.fd = -1};

static inline unsigned uring_pending(void)
{
	return ur.tail - __atomic_load_n(ur.sq_head, __ATOMIC_ACQUIRE);
}

/* uring_enter submits every queued entry and, if wait, waits for one
 * completion or the timeout. It returns the system call's result (the number
 * submitted) or -1 with errno. */
static inline int uring_enter(unsigned min_complete, int wait, int64_t timeout_ns)
{
	unsigned flags = 0;
	void *arg = NULL;
	size_t argsz = 0;
	if (wait) {
		flags = IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG;
		ur.ts.tv_sec = timeout_ns / 1000000000LL;
		ur.ts.tv_nsec = timeout_ns % 1000000000LL;
		arg = &ur.arg;
		argsz = sizeof ur.arg;
	}
	return (int)sys_result(sys6(__NR_io_uring_enter, ur.fd, uring_pending(), min_complete, flags, (long)arg, (long)argsz));
}

/* uring_arm queues a multishot POLL_ADD for tag; with a full submission
 * queue it submits what is queued first. */
static int uring_arm(int32_t tag)
{
	while (uring_pending() >= ur.sq_entries) {
		int n = uring_enter(0, 0, 0);
		if (n < 0 && errno != EINTR) {
			fail("io_uring_enter (submit %u queued): %s", uring_pending(), strerror(errno));
			return -1;
		}
		if (n == 0) {
			fail("io_uring_enter (submit %u queued): the kernel took none", uring_pending());
			return -1;
		}
	}
	struct io_uring_sqe *s = &ur.sqes[ur.tail & ur.sq_mask];
	memset(s, 0, sizeof *s);
	s->opcode = IORING_OP_POLL_ADD;
	s->fd = rfds[tag];
	s->poll32_events = POLLIN;
	s->len = IORING_POLL_ADD_MULTI;
	s->user_data = (uint64_t)(uint32_t)tag;
	ur.tail++;
	__atomic_store_n(ur.sq_tail, ur.tail, __ATOMIC_RELEASE);
	ur.state[tag] = U_ARMED;
	return 0;
}

static void uring_disarm(int32_t tag)
{
	ur.state[tag] = U_DISARMED;
	if (!ur.listed[tag]) {
		ur.listed[tag] = 1;
		ur.rearm[ur.nrearm++] = tag;
	}
}

static inline int uring_rearm_all(void)
{
	int nr = ur.nrearm;
	ur.nrearm = 0;
	for (int i = 0; i < nr; i++) {
		int32_t tag = ur.rearm[i];
		ur.listed[tag] = 0;
		if (ur.state[tag] == U_DISARMED && uring_arm(tag) < 0)
			return -1;
	}
	return 0;
}

/* uring_reap stores the tags of the completions in the CQ ring, each once
 * per wait call, and consumes them: no system call. */
static inline int uring_reap(void)
{
	unsigned head = __atomic_load_n(ur.cq_head, __ATOMIC_RELAXED);
	unsigned tail = __atomic_load_n(ur.cq_tail, __ATOMIC_ACQUIRE);
	int k = 0, err = 0;
	for (; head != tail && !err; head++) {
		const struct io_uring_cqe *c = &ur.cqes[head & ur.cq_mask];
		uint32_t tag = (uint32_t)c->user_data;
		if (tag >= (uint32_t)npipes || ur.state[tag] != U_ARMED)
			continue;
		if (c->res < 0) {
			if (c->res == -ECANCELED) { /* its submitter exited: arm it again */
				uring_disarm((int32_t)tag);
				continue;
			}
			fail("poll pipe %u (fd %d): %s", tag, rfds[tag], strerror(-c->res));
			err = 1;
			continue;
		}
		int report = ur.seen[tag] != ur.call;
		if (report && k == npipes)
			break;
		if (!(c->flags & IORING_CQE_F_MORE))
			uring_disarm((int32_t)tag);
		if (report) {
			ur.seen[tag] = ur.call;
			ready[k++] = (int32_t)tag;
		}
	}
	__atomic_store_n(ur.cq_head, head, __ATOMIC_RELEASE);
	return err ? -1 : k;
}

static inline int uring_wait(void)
{
	const int64_t timeout = (int64_t)WAIT_TIMEOUT_MS * 1000000LL;
	ur.call++;
	if (uring_rearm_all() < 0)
		return -1;
	if (uring_pending() == 0) {
		int n = uring_reap();
		if (n != 0)
			return n;
	}
	int64_t start = 0, left = timeout;
	for (;;) {
		if (uring_rearm_all() < 0)
			return -1;
		int r = uring_enter(1, 1, left);
		int e = r < 0 ? errno : 0;
		if (e && e != ETIME && e != EINTR && e != EBUSY) {
			fail("io_uring_enter: %s", strerror(e));
			return -1;
		}
		int n = uring_reap();
		if (n != 0 || e == ETIME)
			return n;
		/* A signal, or a timeout the kernel did not report because the call
		 * also submitted entries: wait for what is left of the timeout. The
		 * clock is read only on this path. */
		if (start == 0)
			start = now_ns();
		left = timeout - (now_ns() - start);
		if (left <= 0)
			return 0;
	}
}

static int release_at_least(int major, int minor)
{
	struct utsname u;
	int ma, mi;
	if (uname(&u) < 0 || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return 1; /* an unknown scheme: let the kernel answer */
	return ma > major || (ma == major && mi >= minor);
}

/* uring_open makes the ring or refuses, in one line with exit status 2, on
 * a kernel that lacks what the backend needs. */
static void uring_open(int pipes)
{
	if (!release_at_least(5, 13)) {
		struct utsname u;
		uname(&u);
		usage_error("-b uring: multishot poll (IORING_POLL_ADD_MULTI) needs Linux 5.13, this is %s", u.release);
	}
	unsigned sq = (unsigned)(pipes < U_MIN_SQ ? U_MIN_SQ : pipes > U_MAX_SQ ? U_MAX_SQ : pipes);
	unsigned cq = 4 * sq < U_MAX_CQ ? 4 * sq : U_MAX_CQ;
	/* SUBMIT_ALL and COOP_TASKRUN need Linux 5.19; without them, any io_uring */
	const unsigned flags[] = {IORING_SETUP_CQSIZE | IORING_SETUP_CLAMP | IORING_SETUP_SUBMIT_ALL | IORING_SETUP_COOP_TASKRUN,
				  IORING_SETUP_CQSIZE | IORING_SETUP_CLAMP};
	struct io_uring_params p;
	int fd = -1, e = 0;
	for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
		memset(&p, 0, sizeof p);
		p.flags = flags[i];
		p.cq_entries = cq;
		fd = (int)syscall(__NR_io_uring_setup, sq, &p);
		e = fd < 0 ? errno : 0;
		if (e != EINVAL)
			break;
	}
	if (fd < 0) {
		char setting[16] = "";
		FILE *f = fopen("/proc/sys/kernel/io_uring_disabled", "r");
		if (f) {
			if (!fgets(setting, sizeof setting, f))
				setting[0] = 0;
			setting[strcspn(setting, "\n")] = 0;
			fclose(f);
		}
		if (e == ENOSYS)
			usage_error("-b uring: io_uring is not available: io_uring_setup: %s (kernel built without CONFIG_IO_URING, or a seccomp filter refuses it)", strerror(e));
		if (e == EPERM && strcmp(setting, "2") == 0)
			usage_error("-b uring: io_uring is disabled on this machine (/proc/sys/kernel/io_uring_disabled = 2)");
		if (e == EPERM && strcmp(setting, "1") == 0)
			usage_error("-b uring: io_uring is restricted on this machine (/proc/sys/kernel/io_uring_disabled = 1): only CAP_SYS_ADMIN or the group in /proc/sys/kernel/io_uring_group may create a ring");
		if (e == EPERM)
			usage_error("-b uring: io_uring is not permitted: io_uring_setup: %s (a seccomp filter or security module refuses it)", strerror(e));
		die("io_uring_setup (%u entries): %s", sq, strerror(e));
	}
	ur.fd = fd;
	if (!(p.features & IORING_FEAT_EXT_ARG))
		usage_error("-b uring: io_uring on this kernel lacks IORING_FEAT_EXT_ARG (Linux 5.11): io_uring_enter cannot wait with a timeout");

	ur.sq_size = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	ur.cq_size = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	int single = (p.features & IORING_FEAT_SINGLE_MMAP) != 0;
	if (single && ur.cq_size > ur.sq_size)
		ur.sq_size = ur.cq_size;
	ur.sq_mem = mmap(NULL, ur.sq_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQ_RING);
	if (ur.sq_mem == MAP_FAILED)
		die("mmap io_uring SQ ring (%zu bytes): %s", ur.sq_size, strerror(errno));
	if (single) {
		ur.cq_mem = ur.sq_mem;
	} else {
		ur.cq_mem = mmap(NULL, ur.cq_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_CQ_RING);
		if (ur.cq_mem == MAP_FAILED)
			die("mmap io_uring CQ ring (%zu bytes): %s", ur.cq_size, strerror(errno));
	}
	ur.sqe_size = p.sq_entries * sizeof(struct io_uring_sqe);
	ur.sqe_mem = mmap(NULL, ur.sqe_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQES);
	if (ur.sqe_mem == MAP_FAILED)
		die("mmap io_uring SQEs (%zu bytes): %s", ur.sqe_size, strerror(errno));

	char *sqm = ur.sq_mem, *cqm = ur.cq_mem;
	ur.sq_head = (unsigned *)(sqm + p.sq_off.head);
	ur.sq_tail = (unsigned *)(sqm + p.sq_off.tail);
	ur.sq_mask = *(unsigned *)(sqm + p.sq_off.ring_mask);
	ur.sq_entries = *(unsigned *)(sqm + p.sq_off.ring_entries);
	ur.sqes = ur.sqe_mem;
	unsigned *array = (unsigned *)(sqm + p.sq_off.array);
	for (unsigned i = 0; i < ur.sq_entries; i++)
		array[i] = i; /* slot i of the SQE array is always ring entry i */
	ur.tail = __atomic_load_n(ur.sq_tail, __ATOMIC_ACQUIRE);
	ur.cq_head = (unsigned *)(cqm + p.cq_off.head);
	ur.cq_tail = (unsigned *)(cqm + p.cq_off.tail);
	ur.cq_mask = *(unsigned *)(cqm + p.cq_off.ring_mask);
	ur.cqes = (struct io_uring_cqe *)(cqm + p.cq_off.cqes);
	ur.arg.ts = (uint64_t)(uintptr_t)&ur.ts;

	ur.state = calloc((size_t)pipes, 1);
	ur.listed = calloc((size_t)pipes, 1);
	ur.seen = calloc((size_t)pipes, sizeof *ur.seen);
	ur.rearm = calloc((size_t)pipes, sizeof *ur.rearm);
	if (!ur.state || !ur.listed || !ur.seen || !ur.rearm)
		die("out of memory for %d pipes", pipes);
}

/* ---- the backends ----------------------------------------------------------- */

static int epfd = -1;
static struct epoll_event *epevents;
static int epmax;

static struct pollfd *pfds;     /* pfds[i] is pipe i */

static uint64_t *sel_interest, *sel_work; /* bitmaps sized to the largest fd */
static int32_t *sel_tags;                 /* sel_tags[fd] */
static int sel_nfds;

/* backend_fds is how many descriptors an open backend holds itself. */
static int backend_fds(enum backend b) { return b == B_EPOLL || b == B_EPOLL_ET || b == B_URING; }

static int edge_triggered(enum backend b) { return b == B_EPOLL_ET || b == B_URING; }

static void backend_open(enum backend b, int pipes, int maxfd)
{
	switch (b) {
	case B_EPOLL:
	case B_EPOLL_ET:
		epfd = epoll_create1(EPOLL_CLOEXEC);
		if (epfd < 0)
			die("epoll_create1: %s", strerror(errno));
		epmax = pipes < MAX_EVENTS ? pipes : MAX_EVENTS;
		epevents = calloc((size_t)epmax, sizeof *epevents);
		if (!epevents)
			die("out of memory for %d pipes", pipes);
		break;
	case B_POLL:
		pfds = calloc((size_t)pipes, sizeof *pfds);
		if (!pfds)
			die("out of memory for %d pipes", pipes);
		break;
	case B_SELECT: {
		size_t words = (size_t)maxfd / 64 + 1;
		sel_interest = calloc(words, 8);
		sel_work = calloc(words, 8);
		sel_tags = calloc(words * 64, sizeof *sel_tags);
		if (!sel_interest || !sel_work || !sel_tags)
			die("out of memory for %d pipes", pipes);
		break;
	}
	case B_URING:
		uring_open(pipes);
		break;
	}
}

/* backend_close_in_child drops, in the writer process, what the fork copied
 * of the reader's backend. */
static void backend_close_in_child(enum backend b)
{
	if (epfd >= 0)
		close(epfd);
	if (b == B_URING) {
		munmap(ur.sqe_mem, ur.sqe_size);
		if (ur.cq_mem != ur.sq_mem)
			munmap(ur.cq_mem, ur.cq_size);
		munmap(ur.sq_mem, ur.sq_size);
		close(ur.fd);
	}
}

static void backend_add(enum backend b, int fd, int32_t tag)
{
	switch (b) {
	case B_EPOLL:
	case B_EPOLL_ET: {
		struct epoll_event ev = {.events = EPOLLIN | (b == B_EPOLL_ET ? EPOLLET : 0), .data.u32 = (uint32_t)tag};
		if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
			die("epoll_ctl add fd %d: %s", fd, strerror(errno));
		break;
	}
	case B_POLL:
		pfds[tag] = (struct pollfd){.fd = fd, .events = POLLIN};
		break;
	case B_SELECT:
		sel_interest[fd / 64] |= 1ULL << (fd % 64);
		sel_tags[fd] = tag;
		if (fd + 1 > sel_nfds)
			sel_nfds = fd + 1;
		break;
	case B_URING:
		/* queued now, submitted by the reader's first io_uring_enter */
		if (uring_arm(tag) < 0)
			die("%s", fail_msg);
		break;
	}
}

/*
 * backend_wait makes one readiness call with the 100 ms timeout and stores
 * the tags of the ready pipes in ready[]. The calls are the ones pipebench
 * makes: epoll_pwait and ppoll with no signal mask, pselect6, and
 * io_uring_enter only when the CQ ring is empty, each made bare (sys6, as
 * the reads and writes of the hot loops: common.h says why). EINTR is
 * retried (signals are blocked on this thread, so it does not happen).
 */
static inline int backend_wait(enum backend b)
{
	int n;
	switch (b) {
	case B_EPOLL:
	case B_EPOLL_ET:
		do
			n = (int)sys_result(sys6(SYS_epoll_pwait, epfd, (long)epevents, epmax, WAIT_TIMEOUT_MS, 0, 8));
		while (n < 0 && errno == EINTR);
		if (n < 0)
			fail("epoll_pwait: %s", strerror(errno));
		for (int i = 0; i < n; i++)
			ready[i] = (int32_t)epevents[i].data.u32;
		return n;
	case B_POLL: {
		struct timespec ts = {0, WAIT_TIMEOUT_MS * 1000000L};
		do
			n = raw_ppoll(pfds, (nfds_t)npipes, &ts);
		while (n < 0 && errno == EINTR);
		if (n < 0) {
			fail("ppoll %d fds: %s", npipes, strerror(errno));
			return n;
		}
		int k = 0;
		for (int i = 0; n > 0 && i < npipes; i++) {
			if (pfds[i].revents == 0)
				continue;
			n--;
			ready[k++] = i;
		}
		return k;
	}
	case B_SELECT: {
		int words = (sel_nfds + 63) / 64;
		struct timespec ts;
		do {
			memcpy(sel_work, sel_interest, (size_t)words * 8);
			ts = (struct timespec){0, WAIT_TIMEOUT_MS * 1000000L};
			/* no signal mask, as pipebench makes it */
			n = (int)sys_result(sys6(SYS_pselect6, sel_nfds, (long)sel_work, 0, 0, (long)&ts, 0));
		} while (n < 0 && errno == EINTR);
		if (n < 0) {
			fail("pselect6 nfds %d: %s", sel_nfds, strerror(errno));
			return n;
		}
		int k = 0;
		for (int w = 0; n > 0 && w < words; w++)
			for (uint64_t word = sel_work[w]; word; word &= word - 1) {
				ready[k++] = sel_tags[w * 64 + __builtin_ctzll(word)];
				n--;
			}
		return k;
	}
	case B_URING:
		return uring_wait();
	}
	return -1;
}

/* ---- the reader ------------------------------------------------------------ */

struct reader_args {
	struct config cfg;
	int credit_w; /* write end of the credit pipe, or -1 (self mode, -l 0) */
	pthread_barrier_t *start;
	struct counts final;
	struct sched_use sched; /* over the window */
};

/*
 * reader is pipebench's reader.loop and handle: wait; read each reported
 * pipe once (edge-triggered: until a short read or EAGAIN, and only a first
 * read that finds nothing is a false report); then forward its tokens (self
 * mode: the first to the pipe after it, the others on along the route), or
 * return them all as one credit word at the end of the call.
 */
static void *reader(void *arg)
{
	struct reader_args *ra = arg;
	const enum backend b = ra->cfg.backend;
	const int self = ra->cfg.writer == W_SELF;
	const int edge = edge_triggered(b);
	const int credit_w = ra->credit_w;
	struct router route = router_new(ra->cfg.route_next, ra->cfg.seed, ra->cfg.pipes);
	struct counts c = {0};
	static char buf[READ_SIZE];

	pthread_barrier_wait(ra->start);
	const struct sched_use s0 = sched_now();
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		int n = backend_wait(b);
		if (n < 0)
			break;
		c.calls++;
		if (n == 0) {
			c.empty++;
			publish(&c);
			continue;
		}
		uint64_t tokens = 0;
		for (int k = 0; k < n; k++) {
			uint32_t tag = (uint32_t)ready[k];
			int fd = rfds[tag];
			uint64_t got = 0;
			for (int first = 1;; first = 0) {
				ssize_t m = raw_read(fd, buf, READ_SIZE);
				c.reads++;
				if (m < 0) {
					if (errno == EAGAIN) {
						if (first)
							c.spurious++;
						break;
					}
					fail("read pipe %u (fd %d): %s", tag, fd, strerror(errno));
					goto out;
				}
				if (m == 0) {
					fail("pipe %u reached end of file: its writer closed it", tag);
					goto out;
				}
				c.events++;
				got += (uint64_t)m;
				if (!edge || m < READ_SIZE || atomic_load_explicit(&stop, memory_order_relaxed))
					break;
			}
			tokens += got;
			if (self && got > 0) {
				uint32_t j = after(&route, tag);
				for (uint64_t t = 0; t < got; t++) {
					if (t > 0)
						j = pick(&route);
					if (raw_write(wfds[j], &token, 1) != 1) {
						fail("forward token to pipe %u (fd %d): %s", j, wfds[j], strerror(errno));
						c.tokens += tokens;
						goto out;
					}
					c.writes++;
				}
			}
		}
		c.tokens += tokens;
		if (credit_w >= 0 && tokens > 0) {
			if (raw_write(credit_w, &tokens, 8) != 8) { /* little-endian, as pipebench's */
				fail("write %" PRIu64 " credits: %s", tokens, strerror(errno));
				goto out;
			}
			c.writes++;
		}
		publish(&c);
	}
out:
	ra->sched = sched_since(s0);
	publish(&c);
	ra->final = c;
	return NULL;
}

/* ---- the writer: a thread, or the loop of the writer process ---------------- */

/* writer_unbounded is pipebench's writer.unbounded: write a token to the
 * next pipe without waiting; a pipe that is full (EAGAIN) counts as full,
 * not sent; every 1024 writes, one read of the non-blocking credit pipe
 * looks for the stop word. */
static int writer_unbounded(struct writer_state *w)
{
	const int *fds = w->wfds;
	uint64_t sent = 0, full = 0, word;
	int rc = -1;
	for (;;) {
		for (int i = 0; i < CHECK_EVERY; i++) {
			uint32_t j = pick(&w->route);
			if (raw_write(fds[j], &token, 1) == 1) {
				sent++;
			} else if (errno == EAGAIN) {
				full++;
			} else {
				snprintf(w->err, sizeof w->err, "writer: write token to pipe %u (fd %d): %s", j, fds[j], strerror(errno));
				goto out;
			}
		}
		ssize_t n = raw_read(w->credit_r, &word, 8);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n < 0) {
			snprintf(w->err, sizeof w->err, "writer: read stop word: %s", strerror(errno));
			goto out;
		}
		if (n == 8 && word == STOP_CREDIT) {
			rc = 0;
			goto out;
		}
		snprintf(w->err, sizeof w->err, n == 0 ? "writer: end of file on the credit pipe before the stop word"
						       : "writer: unexpected %zd-byte message on the credit pipe in unbounded mode", n);
		goto out;
	}
out:
	w->sent = sent;
	w->full = full;
	return rc;
}

static int writer_loop(struct writer_state *w)
{
	return w->in_flight == 0 ? writer_unbounded(w) : writer_run(w);
}

struct writer_args {
	struct writer_state w;
	pthread_barrier_t *start;
	struct sched_use sched; /* over the window */
};

static void *writer_thread(void *arg)
{
	struct writer_args *wa = arg;
	pthread_barrier_wait(wa->start);
	const struct sched_use s0 = sched_now();
	if (writer_loop(&wa->w) < 0)
		fail("%s", wa->w.err);
	wa->sched = sched_since(s0);
	return NULL;
}

/* ticker is -tick's thread: it sleeps the given time and wakes, over and
 * over, as the Go runtime's sysmon does (20 us at its most frequent, 10 ms
 * when nothing needs it), so that the yardstick's processes can be given
 * the wake-ups of pipebench's runtime threads (../README.md, "Output"):
 * one in the reader's process, and with -writer process one
 * in the writer's (its idle thread, -writer-threads). It ends with the
 * process. */
static const char *tick_text(int64_t ns)
{
	static char b[32];
	if (ns % 1000000 == 0)
		snprintf(b, sizeof b, "%" PRId64 "ms", ns / 1000000);
	else if (ns % 1000 == 0)
		snprintf(b, sizeof b, "%" PRId64 "us", ns / 1000);
	else
		snprintf(b, sizeof b, "%" PRId64 "ns", ns);
	return b;
}

static void *ticker(void *arg)
{
	const int64_t ns = *(const int64_t *)arg;
	const struct timespec ts = {ns / 1000000000LL, ns % 1000000000LL};
	for (;;)
		nanosleep(&ts, NULL);
	return NULL;
}

/* ---- the writer process ----------------------------------------------------- */

/*
 * The reader and its writer process talk over a SOCK_SEQPACKET socket: the
 * write ends go to the writer in batches (SCM_RIGHTS), each closed in the
 * reader once sent; the writer says it is ready, waits for the start, runs
 * the writer loop until the stop word arrives on the credit pipe, reports
 * its counts, and keeps the write ends open until the reader, having
 * drained the pipes, closes the socket.
 */
enum { M_FDS = 1, M_READY, M_START, M_REPORT, M_ERROR };

struct msg {
	uint32_t kind, first, count, pad;
	uint64_t sent, full;
	struct sched_use sched; /* M_REPORT: the writer's, over the window */
	char text[256];
};

union fd_cmsg {
	char buf[CMSG_SPACE(sizeof(int) * BATCH_FDS)];
	struct cmsghdr align;
};

static int send_msg(int sock, const struct msg *m, const int *fds, int nfds)
{
	struct iovec iov = {.iov_base = (void *)m, .iov_len = sizeof *m};
	struct msghdr h = {.msg_iov = &iov, .msg_iovlen = 1};
	union fd_cmsg cm;
	if (nfds > 0) {
		memset(&cm, 0, sizeof cm);
		h.msg_control = cm.buf;
		h.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
		struct cmsghdr *c = CMSG_FIRSTHDR(&h);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)nfds);
	}
	ssize_t n;
	do
		n = sendmsg(sock, &h, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof *m ? 0 : -1;
}

/* recv_msg waits up to timeout_ms (-1: no limit) for one message. It
 * returns 1 with a message, 0 at end of file, -1 on an error (errno) and
 * -2 when the time ran out. Descriptors that came with it go to fds. */
static int recv_msg(int sock, struct msg *m, int timeout_ms, int *fds, int *nfds)
{
	if (timeout_ms >= 0) {
		struct pollfd p = {.fd = sock, .events = POLLIN};
		int r;
		do
			r = poll(&p, 1, timeout_ms);
		while (r < 0 && errno == EINTR);
		if (r < 0)
			return -1;
		if (r == 0)
			return -2;
	}
	struct iovec iov = {.iov_base = m, .iov_len = sizeof *m};
	union fd_cmsg cm;
	struct msghdr h = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.buf, .msg_controllen = sizeof cm.buf};
	ssize_t n;
	do
		n = recvmsg(sock, &h, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	if (n == 0)
		return 0;
	if (nfds)
		*nfds = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&h); c; c = CMSG_NXTHDR(&h, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			int k = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
			if (fds && nfds && *nfds + k <= BATCH_FDS) {
				memcpy(fds + *nfds, CMSG_DATA(c), sizeof(int) * (size_t)k);
				*nfds += k;
			} else {
				int tmp[BATCH_FDS];
				memcpy(tmp, CMSG_DATA(c), sizeof(int) * (size_t)(k < BATCH_FDS ? k : BATCH_FDS));
				for (int i = 0; i < k && i < BATCH_FDS; i++)
					close(tmp[i]);
			}
		}
	if ((h.msg_flags & (MSG_CTRUNC | MSG_TRUNC)) || n != (ssize_t)sizeof *m) {
		errno = EPROTO;
		return -1;
	}
	return 1;
}

static void child_fail(int ctl, const char *fmt, ...)
{
	struct msg m = {.kind = M_ERROR};
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m.text, sizeof m.text, fmt, ap);
	va_end(ap);
	send_msg(ctl, &m, NULL, 0);
	_exit(1);
}

/* writer_process_main is the forked writer. It holds stdio, the control
 * socket, the credit pipe's read end and the write ends: N + 5 descriptors. */
/* idle_thread only exists: see -writer-threads. */
static void *idle_thread(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static void writer_process_main(const struct config *cfg, int ctl, int credit_r, pid_t parent)
{
	/* Its own process group keeps a terminal's ^C away from it (the reader
	 * stops it in order); the parent's death kills it. */
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	int *fds = calloc((size_t)cfg->pipes, sizeof *fds);
	if (!fds)
		child_fail(ctl, "out of memory for %d pipes", cfg->pipes);
	struct msg m;
	int got = 0;
	while (got < cfg->pipes) {
		int batch[BATCH_FDS], nb = 0;
		int r = recv_msg(ctl, &m, -1, batch, &nb);
		if (r == 0)
			_exit(0); /* the reader gave up during setup and said why */
		if (r < 0)
			child_fail(ctl, "receive write ends: %s", strerror(errno));
		if (m.kind != M_FDS || (int)m.first != got || (int)m.count != nb || got + nb > cfg->pipes)
			child_fail(ctl, "descriptor batch for pipes %u..%u out of order (have %d of %d, got %d descriptors)",
				   m.first, m.first + m.count, got, cfg->pipes, nb);
		memcpy(fds + got, batch, sizeof(int) * (size_t)nb);
		got += nb;
	}
	m = (struct msg){.kind = M_READY};
	if (send_msg(ctl, &m, NULL, 0) < 0)
		_exit(1);
	int r = recv_msg(ctl, &m, -1, NULL, NULL);
	if (r == 0)
		_exit(0);
	if (r < 0 || m.kind != M_START)
		child_fail(ctl, "expected the start message");

	/* A process of more than one thread shares its descriptor table, and
	 * then every read and write takes a reference on its file, which the
	 * kernel skips in a process of one thread (fdget). pipebench's writer
	 * process is a Go program, always several threads; by default this one
	 * is two, so that both writers take the same path in the kernel. With
	 * -tick the first of them ticks, as the Go runtime's sysmon does in
	 * pipebench's writer process too. */
	for (int t = 1; t < cfg->writer_threads; t++) {
		pthread_t it;
		int64_t *tick = (int64_t *)&cfg->tick_ns;
		int e = t == 1 && cfg->tick_ns > 0 ? pthread_create(&it, NULL, ticker, tick) : pthread_create(&it, NULL, idle_thread, NULL);
		if (e != 0)
			child_fail(ctl, "start an idle thread: %s", strerror(e));
	}
	struct writer_state w = {.wfds = fds, .route = router_new(cfg->route_next, cfg->seed, cfg->pipes),
				 .in_flight = cfg->in_flight, .credit_r = credit_r,
				 .poll_first = cfg->in_flight > 0 && cfg->credit_wait == CW_PPOLL};
	const struct sched_use s0 = sched_now();
	if (writer_loop(&w) < 0)
		child_fail(ctl, "%s", w.err);
	m = (struct msg){.kind = M_REPORT, .sent = w.sent, .full = w.full, .sched = sched_since(s0)};
	if (send_msg(ctl, &m, NULL, 0) < 0)
		_exit(1);
	/* Keep the write ends open until the reader has drained the pipes and
	 * closed the socket: a pipe with no writer reads as end of file. */
	while (recv_msg(ctl, &m, -1, NULL, NULL) > 0)
		;
	_exit(0);
}

static pid_t child = -1; /* the writer process */
static int child_reaped;
static char child_end[128]; /* how it ended, once reaped */
static int ctl = -1;        /* the reader's end of the control socket */

/* child_cause describes how the writer process ended, waiting up to
 * wait_ms for it; NULL while it runs. */
static const char *child_cause(int wait_ms)
{
	if (child_reaped)
		return child_end;
	if (child <= 0)
		return NULL;
	int status;
	for (int t = 0;; t += 10) {
		pid_t p = waitpid(child, &status, WNOHANG);
		if (p == child)
			break;
		if (p < 0 || t >= wait_ms)
			return NULL;
		struct timespec ts = {0, 10000000L};
		nanosleep(&ts, NULL);
	}
	if (WIFEXITED(status))
		snprintf(child_end, sizeof child_end, "writer process %d exited with status %d", (int)child, WEXITSTATUS(status));
	else
		snprintf(child_end, sizeof child_end, "writer process %d killed by signal %d (%s)", (int)child,
			 WTERMSIG(status), strsignal(WTERMSIG(status)));
	child_reaped = 1;
	return child_end;
}

/* await_child waits up to timeout_ms for a message of kind want; anything
 * else fails the run with the writer's error or how it ended. */
static int await_child(uint32_t want, int timeout_ms, struct msg *m)
{
	int r = recv_msg(ctl, m, timeout_ms, NULL, NULL);
	if (r == 1 && m->kind == want)
		return 0;
	const char *cause;
	if (r == 1 && m->kind == M_ERROR)
		fail("writer process %d failed: %s", (int)child, m->text);
	else if (r == 1)
		fail("writer process %d sent message %u, expected %u", (int)child, m->kind, want);
	else if (r == -2)
		fail("writer process %d sent nothing for %.1fs (stopped?)", (int)child, timeout_ms / 1e3);
	else if (r == 0 && (cause = child_cause(1000)) != NULL)
		fail("%s", cause);
	else
		fail("writer process %d: control socket: %s", (int)child, r == 0 ? "closed" : strerror(errno));
	return -1;
}

/* end_child lets the writer process exit, killing it after 5 s. */
static void end_child(void)
{
	if (ctl >= 0)
		close(ctl);
	ctl = -1;
	if (child > 0 && !child_cause(5000)) {
		kill(child, SIGKILL);
		child_cause(5000);
	}
}

/* ---- flags ----------------------------------------------------------------- */

static struct config parse_flags(int argc, char **argv)
{
	struct config c = {.pipes = 1000, .in_flight = 1, .warmup = 1, .backend = B_EPOLL,
			   .writer = W_THREAD, .seed = 1, .duration_ns = 10000000000LL, .writer_threads = 2,
			   .interval_ns = 1000000000LL};
	char name[32];
	const char *val;
	for (int i = 1, r; (r = next_flag(argc, argv, &i, name, &val)) != 0;) {
		if (r < 0) {
			printf("usage: yardstick [-n pipes] [-l tokens, 0 = unbounded] [-b epoll|epoll-et|poll|select|uring]\n"
			       "                 [-writer self|thread|process] [-route random|next] [-seed S]\n"
			       "                 [-d duration] [-i interval] [-warmup K]\n"
			       "                 [-credit-wait auto|read|ppoll] [-writer-threads N] [-tick D]\n"
			       "                 [-calls function|inline|go]\n");
			exit(0);
		}
		if (strcmp(name, "n") == 0)
			c.pipes = (int)parse_int("-n", val, 1, MAX_PIPES);
		else if (strcmp(name, "l") == 0)
			c.in_flight = (int)parse_int("-l", val, 0, MAX_IN_FLIGHT);
		else if (strcmp(name, "warmup") == 0)
			c.warmup = (int)parse_int("-warmup", val, 0, 1000);
		else if (strcmp(name, "seed") == 0)
			c.seed = (uint64_t)parse_int("-seed", val, 0, INT64_MAX);
		else if (strcmp(name, "b") == 0)
			c.backend = parse_choice("-b", val, backend_names, 5, "epoll, epoll-et, poll, select or uring");
		else if (strcmp(name, "writer") == 0)
			c.writer = parse_choice("-writer", val, writer_names, 3, "self, thread or process");
		else if (strcmp(name, "route") == 0)
			c.route_next = parse_choice("-route", val, (const char *const[]){"random", "next"}, 2, "random or next");
		else if (strcmp(name, "d") == 0)
			c.duration_ns = parse_duration("-d", val);
		else if (strcmp(name, "i") == 0)
			c.interval_ns = parse_duration("-i", val);
		else if (strcmp(name, "credit-wait") == 0)
			c.credit_wait = parse_choice("-credit-wait", val, credit_wait_names, 3, "auto, read or ppoll");
		else if (strcmp(name, "writer-threads") == 0)
			c.writer_threads = (int)parse_int("-writer-threads", val, 1, 64);
		else if (strcmp(name, "tick") == 0)
			c.tick_ns = parse_duration("-tick", val);
		else if (strcmp(name, "calls") == 0) {
			calls = parse_choice("-calls", val, calls_names, 3, "function, inline or go");
			if (calls == CALLS_GOABI && !CALLS_GO)
				usage_error("-calls go: only on x86-64: want function or inline");
		} else
			usage_error("flag provided but not defined: -%s", name);
	}
	if (c.interval_ns < 10000000LL)
		usage_error("-i: want an interval of at least 10ms");
	if (c.duration_ns > 0 && c.interval_ns > c.duration_ns)
		usage_error("-i is longer than -d: want an interval no longer than the duration");
	if (c.tick_ns != 0 && c.tick_ns < 1000)
		usage_error("-tick: want 0 (none) or a duration of 1us or more");
	if (c.in_flight == 0 && c.writer == W_SELF)
		usage_error("-l 0 (unbounded) needs a separate writer: use -writer thread or process");
	return c;
}

/* ---- descriptors --------------------------------------------------------------- */

/*
 * need returns the peak descriptors each process holds: those open at the
 * start (base: stdio and what the caller left open), the backend's own, then
 *   self:    both ends of every pipe;
 *   thread:  the same and the credit pipe;
 *   process: the reader holds the read ends, the credit pipe's write end,
 *            the control socket and at most one batch of write ends on
 *            their way to the writer, which holds the write ends, the
 *            credit pipe's read end and its end of the socket.
 */
static void need(enum writer w, unsigned long long base, int bfds, unsigned long long n, unsigned long long *reader,
		 unsigned long long *writer)
{
	*writer = 0;
	switch (w) {
	case W_SELF:
		*reader = base + (unsigned long long)bfds + 2 * n;
		break;
	case W_THREAD:
		*reader = base + (unsigned long long)bfds + 2 + 2 * n;
		break;
	case W_PROCESS:
		*reader = base + (unsigned long long)bfds + 2 + n + (n < BATCH_FDS ? n : BATCH_FDS);
		*writer = base + 2 + n;
		break;
	}
}

static void check_limit(const struct config *cfg, unsigned long long limit)
{
	int bfds = backend_fds(cfg->backend);
	unsigned long long base = open_fds(), r, w;
	need(cfg->writer, base, bfds, (unsigned long long)cfg->pipes, &r, &w);
	unsigned long long worst = r > w ? r : w;
	if (worst <= limit)
		return;
	long long most = cfg->pipes;
	while (most > 0) {
		need(cfg->writer, base, bfds, (unsigned long long)most, &r, &w);
		if ((r > w ? r : w) <= limit)
			break;
		most--;
	}
	usage_error("-n %d with -writer %s needs %llu descriptors in one process, the limit is %llu: want -n %lld or fewer%s, or a higher hard limit",
		    cfg->pipes, writer_names[cfg->writer], worst, limit, most,
		    cfg->writer == W_PROCESS ? "" : ", -writer process (each process then holds about -n descriptors)");
}

/* ---- setup, measurement, teardown --------------------------------------------- */

static uint64_t drain(void)
{
	static char buf[65536];
	uint64_t total = 0;
	for (int i = 0; i < npipes; i++)
		for (;;) {
			ssize_t n = read(rfds[i], buf, sizeof buf);
			if (n <= 0) {
				if (n < 0 && errno != EAGAIN)
					die("drain pipe %d (fd %d): %s", i, rfds[i], strerror(errno));
				break;
			}
			total += (uint64_t)n;
		}
	return total;
}

/* make_pipes makes every pipe and registers its read end. In process mode
 * each batch of write ends goes to the writer and is closed here. */
static void make_pipes(const struct config *cfg)
{
	int batch[BATCH_FDS], nb = 0, first = 0;
	for (int i = 0; i < cfg->pipes; i++) {
		int p[2];
		if (pipe2(p, O_NONBLOCK | O_CLOEXEC) < 0)
			die("make pipe %d of %d: %s", i + 1, cfg->pipes, strerror(errno));
		rfds[i] = p[0];
		if (cfg->writer == W_PROCESS)
			batch[nb++] = p[1];
		else
			wfds[i] = p[1];
		backend_add(cfg->backend, p[0], i);
		if (nb == BATCH_FDS || (nb > 0 && i == cfg->pipes - 1)) {
			struct msg m = {.kind = M_FDS, .first = (uint32_t)first, .count = (uint32_t)nb};
			int e = send_msg(ctl, &m, batch, nb) < 0 ? errno : 0;
			for (int k = 0; k < nb; k++)
				close(batch[k]); /* the writer process has its own copies now */
			if (e) {
				const char *cause = child_cause(1000);
				die("send write ends to the writer process: %s%s%s", strerror(e), cause ? ": " : "", cause ? cause : "");
			}
			first += nb;
			nb = 0;
		}
	}
}

int main(int argc, char **argv)
{
	struct config cfg = parse_flags(argc, argv);
	npipes = cfg.pipes;
	const int unbounded = cfg.in_flight == 0;
	/* A write to a pipe or socket whose reader is gone fails with EPIPE
	 * rather than killing the process (the writer process's death). */
	signal(SIGPIPE, SIG_IGN);

	unsigned long long limit = raise_nofile();
	check_limit(&cfg, limit);

	int64_t t_setup = now_ns();
	rfds = calloc((size_t)cfg.pipes, sizeof *rfds);
	wfds = calloc((size_t)cfg.pipes, sizeof *wfds);
	ready = calloc((size_t)cfg.pipes, sizeof *ready);
	if (!rfds || !wfds || !ready)
		die("out of memory for %d pipes", cfg.pipes);
	/* The backend first: what this kernel lacks is refused before any pipe
	 * or process is made. */
	int maxfd = limit > (unsigned long long)INT32_MAX ? INT32_MAX - 1 : (int)limit - 1;
	backend_open(cfg.backend, cfg.pipes, maxfd);
	int credit_r = -1, credit_w = -1;
	if (cfg.writer != W_SELF) {
		/* made before the pipes, so that it gets a full-sized buffer */
		int p[2];
		if (pipe2(p, O_CLOEXEC) < 0)
			die("make credit pipe: %s", strerror(errno));
		if (fcntl(p[1], F_SETPIPE_SZ, CREDIT_PIPE_SIZE) < 0)
			die("size credit pipe to %d bytes: %s", CREDIT_PIPE_SIZE, strerror(errno));
		int poll_first = !unbounded && (cfg.credit_wait == CW_PPOLL || (cfg.credit_wait == CW_AUTO && cfg.writer == W_THREAD));
		if (fcntl(p[1], F_SETFL, O_NONBLOCK) < 0 || ((unbounded || poll_first) && fcntl(p[0], F_SETFL, O_NONBLOCK) < 0))
			die("credit pipe: %s", strerror(errno));
		credit_r = p[0];
		credit_w = p[1];
	}
	if (cfg.writer == W_PROCESS) {
		int sp[2];
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0)
			die("make control socketpair: %s", strerror(errno));
		fflush(stdout);
		pid_t parent = getpid();
		child = fork();
		if (child < 0)
			die("fork the writer process: %s", strerror(errno));
		if (child == 0) {
			close(sp[0]);
			close(credit_w);
			backend_close_in_child(cfg.backend);
			writer_process_main(&cfg, sp[1], credit_r, parent);
		}
		close(sp[1]);
		close(credit_r);
		credit_r = -1;
		ctl = sp[0];
	}
	make_pipes(&cfg);
	if (cfg.writer == W_PROCESS) {
		struct msg m;
		if (await_child(M_READY, 60000, &m) < 0) {
			end_child();
			die("writer process setup: %s", fail_msg);
		}
	}
	uint64_t primed = 0;
	if (cfg.writer == W_SELF) {
		struct router route = router_new(cfg.route_next, cfg.seed ^ 0x5eed, cfg.pipes);
		for (int k = 0; k < cfg.in_flight; k++) {
			uint32_t j = pick(&route);
			if (write(wfds[j], &token, 1) != 1)
				die("prime token into pipe %u: %s", j, strerror(errno));
			primed++;
		}
	}
	double setup_ms = (double)(now_ns() - t_setup) / 1e6;
	printf("%d pipes setup (%s, writer %s)\n", cfg.pipes, backend_names[cfg.backend], writer_names[cfg.writer]);
	fflush(stdout);

	/* Signals go to the main thread only: the others block them. */
	sigset_t old;
	block_signals(&old);
	pthread_barrier_t start;
	pthread_barrier_init(&start, NULL, cfg.writer == W_THREAD ? 3 : 2);
	struct reader_args ra = {.cfg = cfg, .credit_w = unbounded ? -1 : credit_w, .start = &start};
	struct writer_args wa = {.w = {.wfds = wfds, .route = router_new(cfg.route_next, cfg.seed, cfg.pipes),
				       .in_flight = cfg.in_flight, .credit_r = credit_r,
				       .poll_first = !unbounded && cfg.credit_wait != CW_READ},
				 .start = &start};
	pthread_t rt, wt;
	int e;
	if ((e = pthread_create(&rt, NULL, reader, &ra)) != 0)
		die("start reader thread: %s", strerror(e));
	if (cfg.writer == W_THREAD && (e = pthread_create(&wt, NULL, writer_thread, &wa)) != 0)
		die("start writer thread: %s", strerror(e));
	pthread_t tt;
	if (cfg.tick_ns > 0 && (e = pthread_create(&tt, NULL, ticker, &cfg.tick_ns)) != 0)
		die("start ticker thread: %s", strerror(e));
	catch_signals();
	pthread_sigmask(SIG_SETMASK, &old, NULL);

	int64_t max_iv = cfg.duration_ns > 0 ? cfg.duration_ns / cfg.interval_ns : 1 << 20;
	double *rates = calloc((size_t)max_iv + 1, sizeof *rates);
	if (!rates)
		die("out of memory for %" PRId64 " intervals", max_iv);
	int nrates = 0;
	const struct halts_use h0 = halts_now();
	int64_t t0 = now_ns(), last = t0, last_event = t0;
	pthread_barrier_wait(&start);
	if (cfg.writer == W_PROCESS) {
		struct msg m = {.kind = M_START};
		if (send_msg(ctl, &m, NULL, 0) < 0)
			fail("start the writer process: %s", strerror(errno));
	}
	struct counts prev = {0};
	for (int64_t k = 1; !interrupted && !atomic_load(&failed); k++) {
		if (sleep_until(t0 + k * cfg.interval_ns))
			break; /* interrupted by a signal */
		if (atomic_load(&failed))
			break;
		int64_t now = now_ns();
		struct counts c = snapshot();
		double secs = (double)(now - last) / 1e9;
		uint64_t ev = c.events - prev.events, full = (c.calls - prev.calls) - (c.empty - prev.empty);
		double rate = (double)ev / secs;
		printf("%.0f evts/sec %g samples per call\n", rate, full ? (double)ev / (double)full : 0.0);
		fflush(stdout);
		if (nrates <= max_iv)
			rates[nrates++] = rate;
		prev = c;
		last = now;
		if (cfg.writer == W_PROCESS) {
			/* Anything from the writer process before the stop word is its
			 * failure or its end: one poll per interval, off the hot loop. */
			struct pollfd p = {.fd = ctl, .events = POLLIN};
			struct msg m;
			if (poll(&p, 1, 0) > 0 && await_child(M_REPORT, 0, &m) == 0)
				fail("writer process %d reported before the stop word", (int)child);
			if (atomic_load(&failed))
				break;
		}
		if (ev > 0) {
			last_event = now;
		} else if (now - last_event >= 2000000000LL && now - last_event >= 3 * cfg.interval_ns) {
			fail("stalled: no event for %.1fs", (double)(now - last_event) / 1e9);
			break;
		}
		if (cfg.duration_ns > 0 && k * cfg.interval_ns >= cfg.duration_ns)
			break;
	}
	atomic_store(&stop, 1);
	pthread_join(rt, NULL);
	double elapsed = (double)(now_ns() - t0) / 1e9;
	const struct halts_use halts = halts_since(h0);
	struct counts tot = ra.final;
	uint64_t sent = 0, full = 0;
	struct sched_use wsched = {0};
	int sent_known = 1;
	if (cfg.writer != W_SELF && write(credit_w, &STOP_CREDIT, 8) != 8)
		fail("tell the writer to stop: %s", strerror(errno));
	if (cfg.writer == W_THREAD) {
		pthread_join(wt, NULL);
		sent = wa.w.sent;
		full = wa.w.full;
		wsched = wa.sched;
	} else if (cfg.writer == W_PROCESS) {
		struct msg m;
		if (await_child(M_REPORT, 5000, &m) == 0) {
			sent = m.sent;
			full = m.full;
			wsched = m.sched;
		} else {
			/* Dead or stuck: name how it ended, with what the reader met
			 * first (end of file on a pipe, EPIPE on the credit pipe). */
			sent_known = 0;
			const char *cause = child_cause(2000);
			pthread_mutex_lock(&fail_mu);
			if (cause && strncmp(fail_msg, "writer process", 14) != 0) {
				char was[sizeof fail_msg];
				snprintf(was, sizeof was, "%s", fail_msg);
				snprintf(fail_msg, sizeof fail_msg, "%s during the run%s%.*s", cause, was[0] ? ": " : "", 400, was);
			} else if (!atomic_load(&failed)) {
				snprintf(fail_msg, sizeof fail_msg, "%s", "the writer process did not report");
			}
			atomic_store(&failed, 1);
			pthread_mutex_unlock(&fail_mu);
			if (!cause)
				kill(child, SIGKILL);
		}
	} else {
		sent = primed + tot.writes;
	}
	uint64_t drained = drain();
	if (cfg.writer == W_PROCESS)
		end_child();
	int64_t lost = (int64_t)sent - (int64_t)tot.tokens - (int64_t)drained;

	int warm = nrates > cfg.warmup ? cfg.warmup : 0;
	char flight[32];
	if (unbounded)
		snprintf(flight, sizeof flight, "unbounded");
	else
		snprintf(flight, sizeof flight, "%d", cfg.in_flight);
	printf("--- yardstick: %s, %d pipes, %s tokens in flight, writer %s, %s %.3fs\n",
	       backend_names[cfg.backend], cfg.pipes, flight, writer_names[cfg.writer],
	       interrupted ? "interrupted after" : "measured", elapsed);
	if (nrates > 0)
		printf("evts/sec       median %.0f  (n=%d intervals, %d warm-up left out)\n",
		       median(rates + warm, nrates - warm), nrates - warm, warm);
	else
		printf("evts/sec       no full interval\n");
	printf("samples/call   %g  (%" PRIu64 " readiness calls, %" PRIu64 " empty)\n",
	       tot.calls > tot.empty ? (double)tot.events / (double)(tot.calls - tot.empty) : 0.0,
	       tot.calls, tot.empty);
	/* writes: the reader's (forwards or credit words) and the writer's tokens */
	printf("per event      calls %.4g  reads %.4g  writes %.4g", per(tot.calls, tot.events),
	       per(tot.reads, tot.events), per(tot.writes + (cfg.writer == W_SELF ? 0 : sent), tot.events));
	if (unbounded)
		printf("  full %.4g", per(full, tot.events));
	printf("\n");
	print_sched("reader thread", ra.sched, tot.events);
	if (cfg.writer != W_SELF && sent_known)
		print_sched("writer thread", wsched, tot.events);
	print_halts(halts, tot.events);
	printf("setup          %d pipes in %.1f ms\n", cfg.pipes, setup_ms);
	if (sent_known)
		printf("tokens         sent %" PRIu64 "  received %" PRIu64 "  drained %" PRIu64 "  lost %" PRId64 "\n",
		       sent, tot.tokens, drained, lost);
	else
		printf("tokens         sent unknown (the writer died before reporting)  received %" PRIu64 "  drained %" PRIu64 "  lost unknown\n",
		       tot.tokens, drained);
	if (cfg.writer != W_SELF && cfg.in_flight > 0) {
		int ppolls = cfg.credit_wait == CW_PPOLL || (cfg.credit_wait == CW_AUTO && cfg.writer == W_THREAD);
		printf("writer waits   %s for credits", ppolls ? "in ppoll, then reads," : "in read");
		if (cfg.writer == W_PROCESS)
			printf(" in a process of %d thread%s", cfg.writer_threads, cfg.writer_threads == 1 ? "" : "s");
		printf("\n");
	}
	if (cfg.tick_ns > 0)
		printf("ticker         a thread in %s wakes every %s (-tick), as the Go runtime's sysmon does\n",
		       cfg.writer == W_PROCESS && cfg.writer_threads > 1 ? "each process" : "the reader's process", tick_text(cfg.tick_ns));
	print_calls();
	fflush(stdout);
	if (atomic_load(&failed))
		die("%s", fail_msg);
	if (lost != 0)
		die("tokens do not add up: sent %" PRIu64 ", received %" PRIu64 ", drained %" PRIu64 ": %" PRId64 " lost",
		    sent, tot.tokens, drained, lost);
	return 0;
}
