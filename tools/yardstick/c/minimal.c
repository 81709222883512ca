/*
 * minimal: the plainest C loop that makes the yardstick's system calls in
 * self mode, the yardstick's own check (../README.md, "The minimal loop").
 *
 *   minimal [-n pipes] [-l tokens] [-b epoll|epoll-et|poll|select|uring]
 *           [-writer self] [-seed S] [-d duration] [-i interval] [-warmup K]
 *           [-idle-threads K]
 *
 * N pipes made with pipe2(O_NONBLOCK), L one-byte tokens in flight. One
 * thread waits with the yardstick's call
 * (epoll_pwait, ppoll, pselect6 or io_uring_enter, 100 ms timeout), reads
 * each reported pipe once, up to 1024 bytes (edge-triggered: until a short
 * read), and writes each token it read into a pipe chosen by pipebench's
 * xorshift route. It counts events and calls and nothing else, reads the
 * clock once every 256 calls, and prints a line per interval and the
 * median, in the yardstick's words, so that compare.sh can read it (MIN=1).
 * Its system calls are bare, as the yardstick's and pipebench's (common.h).
 * No reporting thread, no counter publication, no accounting, no failure
 * path but the first error's one line.
 *
 * -idle-threads K (default 1) starts K threads that only exist (they wait
 * in pause): a process of several threads shares its descriptor table, and
 * the kernel then takes a reference on the file in every read, write and
 * wait, which it skips in a process of one thread (fdget). A Go program
 * always has several threads, and the yardstick's reader process has two
 * (the reader, and main, which reports): with one idle thread the loop
 * takes their path in the kernel; -idle-threads 0 shows what a process of
 * one thread saves there.
 *
 * Build: gcc -O2 -std=c11 -Wall -Wextra -Werror -pthread -o minimal minimal.c
 */
#define _GNU_SOURCE
#define PROG "minimal"
#include "common.h"

#include <fcntl.h>
#include <linux/io_uring.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/syscall.h>

enum { READ_SIZE = 1024, CLOCK_EVERY = 256, MAX_IN_FLIGHT = 4096, MAX_PIPES = 1000000 };
enum backend { B_EPOLL, B_EPOLL_ET, B_POLL, B_SELECT, B_URING };
static const char *const backend_names[] = {"epoll", "epoll-et", "poll", "select", "uring"};
static const int TIMEOUT_MS = 100;

static int npipes, *rfds, *wfds, *ready;

/* epoll */
static int epfd;
static struct epoll_event *epev;
/* poll */
static struct pollfd *pfds;
/* select: the interest set, the set the call overwrites, tags by fd */
static uint64_t *sel_in, *sel_out;
static int *sel_tag, sel_nfds;
/* io_uring: one multishot poll per pipe, the rings mapped as the kernel says */
static struct {
	int fd;
	unsigned *sq_head, *sq_tail, sq_mask, tail, *cq_head, *cq_tail, cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
	struct io_uring_getevents_arg arg;
	struct __kernel_timespec ts;
	uint64_t *seen, call;
	int *rearm, nrearm;
} ur;

static void *map(int fd, size_t size, off_t off)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, off);
	if (p == MAP_FAILED)
		die("mmap io_uring (%zu bytes at %#lx): %s", size, (unsigned long)off, strerror(errno));
	return p;
}

static void uring_open(void)
{
	unsigned sq = npipes < 64 ? 64 : npipes > 32768 ? 32768 : (unsigned)npipes;
	struct io_uring_params p = {.flags = IORING_SETUP_CQSIZE | IORING_SETUP_CLAMP | IORING_SETUP_SUBMIT_ALL | IORING_SETUP_COOP_TASKRUN,
				    .cq_entries = 4 * sq < 65536 ? 4 * sq : 65536};
	ur.fd = (int)syscall(__NR_io_uring_setup, sq, &p);
	if (ur.fd < 0)
		usage_error("-b uring: io_uring_setup: %s", strerror(errno));
	if (!(p.features & IORING_FEAT_SINGLE_MMAP) || !(p.features & IORING_FEAT_EXT_ARG))
		usage_error("-b uring: this kernel's io_uring lacks a single mmap or EXT_ARG (Linux 5.11)");
	size_t sqsz = p.sq_off.array + p.sq_entries * sizeof(unsigned), cqsz = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	char *m = map(ur.fd, sqsz > cqsz ? sqsz : cqsz, IORING_OFF_SQ_RING);
	ur.sqes = map(ur.fd, p.sq_entries * sizeof(struct io_uring_sqe), IORING_OFF_SQES);
	ur.sq_head = (unsigned *)(m + p.sq_off.head);
	ur.sq_tail = (unsigned *)(m + p.sq_off.tail);
	ur.sq_mask = *(unsigned *)(m + p.sq_off.ring_mask);
	unsigned *array = (unsigned *)(m + p.sq_off.array);
	for (unsigned i = 0; i < p.sq_entries; i++)
		array[i] = i;
	ur.cq_head = (unsigned *)(m + p.cq_off.head);
	ur.cq_tail = (unsigned *)(m + p.cq_off.tail);
	ur.cq_mask = *(unsigned *)(m + p.cq_off.ring_mask);
	ur.cqes = (struct io_uring_cqe *)(m + p.cq_off.cqes);
	ur.arg.ts = (uint64_t)(uintptr_t)&ur.ts;
	ur.ts.tv_nsec = TIMEOUT_MS * 1000000L;
	ur.seen = calloc((size_t)npipes, sizeof *ur.seen);
	ur.rearm = calloc((size_t)npipes, sizeof *ur.rearm);
	if (!ur.seen || !ur.rearm)
		die("out of memory for %d pipes", npipes);
}

/* uring_enter submits what is queued and, if wait, waits for a completion. */
static int uring_enter(int wait)
{
	unsigned pending = ur.tail - __atomic_load_n(ur.sq_head, __ATOMIC_ACQUIRE);
	return (int)sys_result(sys6(__NR_io_uring_enter, ur.fd, pending, wait, wait ? IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG : 0,
					 wait ? (long)&ur.arg : 0, wait ? (long)sizeof ur.arg : 0));
}

static void uring_arm(int tag)
{
	if (ur.tail - __atomic_load_n(ur.sq_head, __ATOMIC_ACQUIRE) > ur.sq_mask && uring_enter(0) < 0)
		die("io_uring_enter (submit): %s", strerror(errno));
	struct io_uring_sqe *s = &ur.sqes[ur.tail & ur.sq_mask];
	memset(s, 0, sizeof *s);
	s->opcode = IORING_OP_POLL_ADD;
	s->fd = rfds[tag];
	s->poll32_events = POLLIN;
	s->len = IORING_POLL_ADD_MULTI;
	s->user_data = (uint64_t)tag;
	__atomic_store_n(ur.sq_tail, ++ur.tail, __ATOMIC_RELEASE);
}

/* uring_reap stores each pipe with a completion once per call; a poll that
 * ended (no IORING_CQE_F_MORE) is armed again before the next wait. */
static int uring_reap(void)
{
	unsigned head = *ur.cq_head, tail = __atomic_load_n(ur.cq_tail, __ATOMIC_ACQUIRE);
	int k = 0;
	for (; head != tail; head++) {
		const struct io_uring_cqe *c = &ur.cqes[head & ur.cq_mask];
		int tag = (int)c->user_data;
		if (c->res < 0 && c->res != -ECANCELED)
			die("poll pipe %d: %s", tag, strerror(-c->res));
		if (c->res < 0 || !(c->flags & IORING_CQE_F_MORE))
			ur.rearm[ur.nrearm++] = tag;
		if (c->res >= 0 && ur.seen[tag] != ur.call) {
			ur.seen[tag] = ur.call;
			ready[k++] = tag;
		}
	}
	__atomic_store_n(ur.cq_head, head, __ATOMIC_RELEASE);
	return k;
}

static int uring_wait(void)
{
	ur.call++;
	for (int i = 0; i < ur.nrearm; i++)
		uring_arm(ur.rearm[i]);
	ur.nrearm = 0;
	int n = ur.tail == __atomic_load_n(ur.sq_head, __ATOMIC_ACQUIRE) ? uring_reap() : 0;
	if (n > 0)
		return n;
	if (uring_enter(1) < 0 && errno != ETIME && errno != EINTR && errno != EBUSY)
		die("io_uring_enter: %s", strerror(errno));
	return uring_reap();
}

static void add(enum backend b, int tag)
{
	int fd = rfds[tag];
	if (b == B_EPOLL || b == B_EPOLL_ET) {
		struct epoll_event ev = {.events = EPOLLIN | (b == B_EPOLL_ET ? EPOLLET : 0), .data.u32 = (uint32_t)tag};
		if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
			die("epoll_ctl add fd %d: %s", fd, strerror(errno));
	} else if (b == B_POLL) {
		pfds[tag] = (struct pollfd){.fd = fd, .events = POLLIN};
	} else if (b == B_SELECT) {
		sel_in[fd / 64] |= 1ULL << (fd % 64);
		sel_tag[fd] = tag;
		sel_nfds = fd + 1 > sel_nfds ? fd + 1 : sel_nfds;
	} else {
		uring_arm(tag);
	}
}

/* wait_ready makes one readiness call and stores the ready pipes in ready[]. */
static inline int wait_ready(enum backend b)
{
	int n, k = 0;
	switch (b) {
	case B_EPOLL:
	case B_EPOLL_ET:
		n = (int)sys_result(sys6(SYS_epoll_pwait, epfd, (long)epev, npipes, TIMEOUT_MS, 0, 8));
		for (int i = 0; i < n; i++)
			ready[i] = (int)epev[i].data.u32;
		return n;
	case B_POLL: {
		struct timespec ts = {0, TIMEOUT_MS * 1000000L};
		n = raw_ppoll(pfds, (nfds_t)npipes, &ts);
		for (int i = 0; n > 0 && i < npipes; i++)
			if (pfds[i].revents) {
				ready[k++] = i;
				n--;
			}
		return n < 0 ? n : k;
	}
	case B_SELECT: {
		int words = (sel_nfds + 63) / 64;
		struct timespec ts = {0, TIMEOUT_MS * 1000000L};
		memcpy(sel_out, sel_in, (size_t)words * 8);
		n = (int)sys_result(sys6(SYS_pselect6, sel_nfds, (long)sel_out, 0, 0, (long)&ts, 0));
		for (int w = 0; n > 0 && w < words; w++)
			for (uint64_t word = sel_out[w]; word; word &= word - 1) {
				ready[k++] = sel_tag[w * 64 + __builtin_ctzll(word)];
				n--;
			}
		return n < 0 ? n : k;
	}
	case B_URING:
		return uring_wait();
	}
	return -1;
}

static void *idle(void *arg)
{
	for (;;)
		pause();
	return arg;
}

int main(int argc, char **argv)
{
	int in_flight = 1, warmup = 1, idle_threads = 1;
	enum backend b = B_EPOLL;
	uint64_t seed = 1;
	int64_t duration = 10000000000LL, interval = 1000000000LL;
	npipes = 1000;
	char name[32];
	const char *val;
	for (int i = 1, r; (r = next_flag(argc, argv, &i, name, &val)) != 0;) {
		if (r < 0) {
			printf("usage: minimal [-n pipes] [-l tokens] [-b epoll|epoll-et|poll|select|uring] [-writer self]\n"
			       "               [-seed S] [-d duration] [-i interval] [-warmup K] [-idle-threads K]\n"
			       "               [-calls function|inline|go]\n");
			return 0;
		}
		if (strcmp(name, "n") == 0)
			npipes = (int)parse_int("-n", val, 1, MAX_PIPES);
		else if (strcmp(name, "l") == 0)
			in_flight = (int)parse_int("-l", val, 1, MAX_IN_FLIGHT);
		else if (strcmp(name, "b") == 0)
			b = parse_choice("-b", val, backend_names, 5, "epoll, epoll-et, poll, select or uring");
		else if (strcmp(name, "writer") == 0)
			parse_choice("-writer", val, (const char *const[]){"self"}, 1, "self (the minimal loop writes its own tokens)");
		else if (strcmp(name, "seed") == 0)
			seed = (uint64_t)parse_int("-seed", val, 0, INT64_MAX);
		else if (strcmp(name, "d") == 0)
			duration = parse_duration("-d", val);
		else if (strcmp(name, "i") == 0)
			interval = parse_duration("-i", val);
		else if (strcmp(name, "warmup") == 0)
			warmup = (int)parse_int("-warmup", val, 0, 1000);
		else if (strcmp(name, "idle-threads") == 0)
			idle_threads = (int)parse_int("-idle-threads", val, 0, 64);
		else if (strcmp(name, "calls") == 0) {
			calls = parse_choice("-calls", val, calls_names, 3, "function, inline or go");
			if (calls == CALLS_GOABI && !CALLS_GO)
				usage_error("-calls go: only on x86-64: want function or inline");
		} else
			usage_error("flag provided but not defined: -%s", name);
	}
	if (interval < 10000000LL || (duration > 0 && interval > duration))
		usage_error("-i: want an interval of at least 10ms and no longer than -d");
	unsigned long long limit = raise_nofile();
	if (open_fds() + 1 + 2 * (unsigned long long)npipes > limit)
		usage_error("-n %d needs %llu descriptors, the limit is %llu", npipes, open_fds() + 1 + 2 * (unsigned long long)npipes, limit);

	rfds = calloc((size_t)npipes, sizeof *rfds);
	wfds = calloc((size_t)npipes, sizeof *wfds);
	ready = calloc((size_t)npipes, sizeof *ready);
	if (!rfds || !wfds || !ready)
		die("out of memory for %d pipes", npipes);
	if (b == B_EPOLL || b == B_EPOLL_ET) {
		if ((epfd = epoll_create1(EPOLL_CLOEXEC)) < 0)
			die("epoll_create1: %s", strerror(errno));
		epev = calloc((size_t)npipes, sizeof *epev);
	} else if (b == B_POLL) {
		pfds = calloc((size_t)npipes, sizeof *pfds);
	} else if (b == B_SELECT) {
		size_t words = (size_t)limit / 64 + 1;
		sel_in = calloc(words, 8);
		sel_out = calloc(words, 8);
		sel_tag = calloc(words * 64, sizeof *sel_tag);
	} else {
		uring_open();
	}
	for (int i = 0; i < npipes; i++) {
		int p[2];
		if (pipe2(p, O_NONBLOCK | O_CLOEXEC) < 0)
			die("make pipe %d of %d: %s", i + 1, npipes, strerror(errno));
		rfds[i] = p[0];
		wfds[i] = p[1];
		add(b, i);
	}
	struct router route = router_new(0, seed, npipes);
	for (int k = 0; k < in_flight; k++) {
		uint32_t j = pick(&route);
		if (write(wfds[j], &token, 1) != 1)
			die("prime token into pipe %u: %s", j, strerror(errno));
	}
	for (int t = 0; t < idle_threads; t++) {
		pthread_t it;
		if (pthread_create(&it, NULL, idle, NULL) != 0)
			die("start an idle thread");
	}
	printf("%d pipes setup (%s, writer self)\n", npipes, backend_names[b]);
	fflush(stdout);

	const int edge = b == B_EPOLL_ET || b == B_URING;
	int64_t max_iv = duration > 0 ? duration / interval : 1 << 20;
	double *rates = calloc((size_t)max_iv + 1, sizeof *rates);
	int nrates = 0;
	int64_t printed = 0;
	uint64_t events = 0, calls = 0, last_events = 0, last_calls = 0;
	int64_t t0 = now_ns(), last = t0, due = t0 + interval;
	static char buf[READ_SIZE];
	for (;;) {
		int n = wait_ready(b);
		if (n < 0)
			die("%s wait: %s", backend_names[b], strerror(errno));
		calls++;
		for (int k = 0; k < n; k++) {
			int tag = ready[k];
			ssize_t m;
			while ((m = raw_read(rfds[tag], buf, READ_SIZE)) > 0) {
				events++;
				for (ssize_t t = 0; t < m; t++) {
					uint32_t j = pick(&route);
					if (raw_write(wfds[j], &token, 1) != 1)
						die("forward token to pipe %u: %s", j, strerror(errno));
				}
				if (!edge || m < READ_SIZE)
					break;
			}
			if (m < 0 && errno != EAGAIN)
				die("read pipe %d: %s", tag, strerror(errno));
			if (m == 0)
				die("pipe %d reached end of file", tag);
		}
		if (calls % CLOCK_EVERY != 0)
			continue;
		int64_t now = now_ns();
		if (now < due)
			continue;
		double rate = (double)(events - last_events) * 1e9 / (double)(now - last);
		uint64_t dc = calls - last_calls;
		printf("%.0f evts/sec %g samples per call\n", rate, dc ? (double)(events - last_events) / (double)dc : 0.0);
		fflush(stdout);
		if (nrates <= max_iv)
			rates[nrates++] = rate;
		last_events = events, last_calls = calls, last = now, due += interval;
		/* As pipebench's reporter: the window is duration/interval
		 * intervals, each printed, however late the clock was read. */
		if (duration > 0 && ++printed >= max_iv)
			break;
	}
	int warm = nrates > warmup ? warmup : 0;
	printf("--- minimal: %s, %d pipes, %d tokens in flight, writer self, measured %.3fs\n", backend_names[b], npipes,
	       in_flight, (double)(now_ns() - t0) / 1e9);
	printf("evts/sec       median %.0f  (n=%d intervals, %d warm-up left out)\n", median(rates + warm, nrates - warm),
	       nrates - warm, warm);
	printf("per event      calls %.4g\n", per(calls, events));
	print_calls();
	return 0;
}
