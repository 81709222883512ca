/*
 * herd: the C counterpart of `pipebench herd` (../../experiment/herd/), so that the
 * thundering herd's figures can be held against what the same system calls
 * cost without the Go runtime. See ../README.md.
 *
 *   yardstick-herd [-waiters K] [-mode threads|processes] [-n pipes]
 *                  [-l tokens] [-exclusive both|off|on] [-seed S]
 *                  [-d duration] [-i interval] [-warmup K] [-format text|csv]
 *
 * K waiters (threads, or forked processes), each with an epoll instance of
 * its own over the same N pipes' read ends (EPOLLIN, with EPOLLEXCLUSIVE
 * when on) and over a stop pipe; a writer thread keeps L tokens in flight
 * on pipebench's seeded random route, one token per credit. A waiter waits
 * (epoll_pwait, 100 ms), reads every reported pipe once without blocking
 * (EAGAIN: a wasted read), returns the tokens it got as one credit word,
 * and publishes its counts once per wait. Each EPOLLEXCLUSIVE setting runs
 * for -d on a fresh setup; the summary shows pipebench herd's figures side
 * by side, and the token accounting (sent = received + drained).
 *
 * Build: gcc -O2 -std=c11 -Wall -Wextra -Werror -pthread -o yardstick-herd herd.c
 */
#define _GNU_SOURCE
#define PROG "yardstick-herd"
#include "common.h"

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

enum { READ_SIZE = 1024 };     /* one read takes at most this much */
enum { MAX_EVENTS = 1024 };    /* one epoll_pwait reports at most this many */
enum { MAX_WAITERS = 1024, MAX_IN_FLIGHT = 4096, MAX_PIPES = 1000000 };
enum { WAIT_TIMEOUT_MS = 100 };
static const int64_t MS = 1000000LL, SEC = 1000000000LL;

struct config {
	int waiters, pipes, in_flight, warmup, processes, csv;
	int exclusive[2], settings; /* the EPOLLEXCLUSIVE settings, in order */
	uint64_t seed;
	int64_t duration_ns, interval_ns;
};
static struct config cfg;

static const char *on_off(int ex) { return ex ? "on" : "off"; }

/* ---- the board: one slot of counters per waiter ----------------------------- */

/*
 * Shared memory (MAP_SHARED, so that forked waiters write into it too).
 * A waiter owns its slot: it counts in locals and publishes them once per
 * wait with plain stores, which the main thread reads every interval.
 */
enum { F_READY, F_DONE, F_ID, F_WAITS, F_RETURNS, F_TIMEOUTS, F_EVENTS, F_TOKENS, F_WASTED_READS,
       F_WASTED_RETURNS, F_CREDITS, F_USER, F_SYS, F_VOLUNTARY, F_INVOLUNTARY, SLOT_WORDS = 16 };
struct slot {
	_Atomic uint64_t w[SLOT_WORDS]; /* 128 bytes: two cache lines */
};

static inline void put(struct slot *s, int f, uint64_t v) { atomic_store_explicit(&s->w[f], v, memory_order_release); }
static inline uint64_t get(struct slot *s, int f) { return atomic_load_explicit(&s->w[f], memory_order_acquire); }

struct counts {
	uint64_t waits, returns, timeouts, events, tokens, wasted_reads, wasted_returns, credits;
};

static void counts_add(struct counts *a, const struct counts *b, int sign)
{
	uint64_t *x = &a->waits;
	const uint64_t *y = &b->waits;
	for (size_t i = 0; i < sizeof *a / sizeof *x; i++)
		x[i] += sign > 0 ? y[i] : -y[i];
}

static struct counts slot_counts(struct slot *s)
{
	return (struct counts){get(s, F_WAITS), get(s, F_RETURNS), get(s, F_TIMEOUTS), get(s, F_EVENTS),
			       get(s, F_TOKENS), get(s, F_WASTED_READS), get(s, F_WASTED_RETURNS), get(s, F_CREDITS)};
}

static struct counts board_sum(struct slot *board, int k)
{
	struct counts c = {0};
	for (int i = 0; i < k; i++) {
		struct counts s = slot_counts(&board[i]);
		counts_add(&c, &s, 1);
	}
	return c;
}

/* ---- usage ------------------------------------------------------------------ */

struct usage {
	int64_t user_ns, sys_ns, voluntary, involuntary;
};

static struct usage thread_usage(void)
{
	struct rusage r;
	if (getrusage(RUSAGE_THREAD, &r) < 0)
		return (struct usage){0};
	return (struct usage){(int64_t)r.ru_utime.tv_sec * SEC + r.ru_utime.tv_usec * 1000,
			      (int64_t)r.ru_stime.tv_sec * SEC + r.ru_stime.tv_usec * 1000, r.ru_nvcsw, r.ru_nivcsw};
}

static struct usage usage_sub(struct usage a, struct usage b)
{
	return (struct usage){a.user_ns - b.user_ns, a.sys_ns - b.sys_ns, a.voluntary - b.voluntary,
			      a.involuntary - b.involuntary};
}

/* ---- a waiter ----------------------------------------------------------------- */

struct waiter {
	int index, epfd, stop_tag, credit_w;
	const int *rfds;
	struct slot *slot;
	struct epoll_event *events;
	int max_events;
	char err[256];
};

/* waiter_open makes the waiter's epoll set: pipe i under tag i, the stop
 * pipe under tag N (never exclusive: one byte in it stops every waiter). */
static int waiter_open(struct waiter *w, const int *rfds, int stop_r, int exclusive)
{
	w->rfds = rfds;
	w->stop_tag = cfg.pipes;
	w->max_events = cfg.pipes + 1 < MAX_EVENTS ? cfg.pipes + 1 : MAX_EVENTS;
	w->events = calloc((size_t)w->max_events, sizeof *w->events);
	if (!w->events) {
		snprintf(w->err, sizeof w->err, "out of memory for %d events", w->max_events);
		return -1;
	}
	w->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (w->epfd < 0) {
		snprintf(w->err, sizeof w->err, "epoll_create1: %s", strerror(errno));
		return -1;
	}
	struct epoll_event ev = {.events = EPOLLIN | (exclusive ? EPOLLEXCLUSIVE : 0)};
	for (int i = 0; i < cfg.pipes; i++) {
		ev.data.u32 = (uint32_t)i;
		if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, rfds[i], &ev) < 0) {
			snprintf(w->err, sizeof w->err, "epoll_ctl add pipe %d (fd %d): %s", i, rfds[i], strerror(errno));
			return -1;
		}
	}
	ev = (struct epoll_event){.events = EPOLLIN, .data.u32 = (uint32_t)w->stop_tag};
	if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, stop_r, &ev) < 0) {
		snprintf(w->err, sizeof w->err, "epoll_ctl add the stop pipe (fd %d): %s", stop_r, strerror(errno));
		return -1;
	}
	return 0;
}

static void waiter_close(struct waiter *w)
{
	if (w->epfd > 0)
		close(w->epfd);
	free(w->events);
}

/* waiter_loop is pipebench's waiter.loop: wait; read every reported pipe
 * once; return the tokens got as one credit word; publish the counts; until
 * the stop pipe is reported. It returns 0 at the stop, -1 with w->err. */
static int waiter_loop(struct waiter *w)
{
	struct slot *s = w->slot;
	struct counts c = {0};
	char buf[READ_SIZE];
	for (int stopped = 0; !stopped;) {
		int n = epoll_pwait(w->epfd, w->events, w->max_events, WAIT_TIMEOUT_MS, NULL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			snprintf(w->err, sizeof w->err, "epoll_wait: %s", strerror(errno));
			return -1;
		}
		c.waits++;
		if (n == 0) {
			c.timeouts++;
			put(s, F_WAITS, c.waits);
			put(s, F_TIMEOUTS, c.timeouts);
			continue;
		}
		uint64_t reported = 0, events = 0, tokens = 0;
		for (int k = 0; k < n; k++) {
			int tag = (int)w->events[k].data.u32;
			if (tag == w->stop_tag) {
				stopped = 1;
				continue;
			}
			reported++;
			ssize_t m = read(w->rfds[tag], buf, READ_SIZE);
			if (m < 0 && errno == EAGAIN) {
				c.wasted_reads++; /* another waiter took the token */
				continue;
			}
			if (m < 0) {
				snprintf(w->err, sizeof w->err, "read pipe %d (fd %d): %s", tag, w->rfds[tag], strerror(errno));
				return -1;
			}
			if (m == 0) {
				snprintf(w->err, sizeof w->err, "pipe %d (fd %d) reached end of file: its writer closed it", tag, w->rfds[tag]);
				return -1;
			}
			events++;
			tokens += (uint64_t)m;
		}
		if (tokens > 0) {
			if (write(w->credit_w, &tokens, 8) != 8) { /* little-endian, as pipebench's */
				snprintf(w->err, sizeof w->err, "return credits: write %" PRIu64 " credits: %s", tokens, strerror(errno));
				return -1;
			}
			c.credits++;
		}
		if (reported > 0) {
			c.returns++;
			c.wasted_returns += events == 0;
		}
		c.events += events;
		c.tokens += tokens;
		put(s, F_WAITS, c.waits);
		put(s, F_RETURNS, c.returns);
		put(s, F_WASTED_RETURNS, c.wasted_returns);
		put(s, F_EVENTS, c.events);
		put(s, F_TOKENS, c.tokens);
		put(s, F_WASTED_READS, c.wasted_reads);
		put(s, F_CREDITS, c.credits);
	}
	return 0;
}

/* waiter_serve runs the waiter from its first wait to its stop and stores
 * its thread's usage over that span. */
static int waiter_serve(struct waiter *w, uint64_t id)
{
	put(w->slot, F_ID, id);
	struct usage u0 = thread_usage();
	put(w->slot, F_READY, 1);
	int rc = waiter_loop(w);
	struct usage u = usage_sub(thread_usage(), u0);
	put(w->slot, F_USER, (uint64_t)u.user_ns);
	put(w->slot, F_SYS, (uint64_t)u.sys_ns);
	put(w->slot, F_VOLUNTARY, (uint64_t)u.voluntary);
	put(w->slot, F_INVOLUNTARY, (uint64_t)u.involuntary);
	put(w->slot, F_DONE, 1);
	return rc;
}

static void *waiter_thread(void *arg)
{
	struct waiter *w = arg;
	if (waiter_serve(w, (uint64_t)syscall(SYS_gettid)) < 0)
		fail("waiter thread %d: %s", w->index, w->err);
	return NULL;
}

/* ---- one EPOLLEXCLUSIVE setting ----------------------------------------------- */

struct side {
	int exclusive, interrupted, measured;
	int *rfds, *wfds;
	int stop_r, stop_w, credit_r, credit_w;
	struct slot *board;
	struct waiter *waiters;
	pthread_t *threads;
	pid_t *pids;
	int started; /* waiters started */
	pthread_t writer;
	int writer_started;
	struct writer_state ws;
	struct usage writer_usage;
	/* results */
	double *rates;
	int nrates;
	int64_t setup_ns, elapsed_ns;
	struct counts window, totals;
	struct usage waiter_usage;
	uint64_t min_tokens, max_tokens, sent, drained;
	int64_t lost;
};

static void start_thread(pthread_t *t, void *(*fn)(void *), void *arg, const char *what)
{
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 << 10);
	sigset_t old;
	block_signals(&old); /* only the main thread takes SIGINT and SIGTERM */
	int e = pthread_create(t, &attr, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (e != 0)
		die("start %s: %s", what, strerror(e));
}

static void make_pipe(int p[2], int flags, const char *what)
{
	if (pipe2(p, flags | O_CLOEXEC) < 0)
		die("make %s: %s", what, strerror(errno));
}

/* waiter_process_main is a forked waiter: it keeps the read ends, the stop
 * pipe's read end and the credit pipe's write end, as pipebench's waiter
 * process does, and exits 0 at the stop, 1 on a failure. */
static void waiter_process_main(struct side *s, struct waiter *w, pid_t parent)
{
	setpgid(0, 0); /* a terminal's ^C goes to the measuring process, which stops it in order */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	for (int i = 0; i < cfg.pipes; i++)
		close(s->wfds[i]);
	close(s->stop_w);
	close(s->credit_r);
	int rc = waiter_open(w, s->rfds, s->stop_r, s->exclusive);
	if (rc == 0)
		rc = waiter_serve(w, (uint64_t)getpid());
	if (rc < 0) {
		fprintf(stderr, PROG " waiter process %d: %s\n", (int)getpid(), w->err);
		_exit(1);
	}
	_exit(0);
}

static void setup(struct side *s)
{
	int p[2];
	make_pipe(p, O_NONBLOCK, "stop pipe");
	s->stop_r = p[0], s->stop_w = p[1];
	/* as internal/tokens' credit pipe: 64 KiB, both ends non-blocking (the
	 * writer sleeps in ppoll) */
	make_pipe(p, O_NONBLOCK, "credit pipe");
	s->credit_r = p[0], s->credit_w = p[1];
	if (fcntl(p[1], F_SETPIPE_SZ, CREDIT_PIPE_SIZE) < 0)
		die("size the credit pipe to %d bytes: %s", CREDIT_PIPE_SIZE, strerror(errno));
	s->rfds = calloc((size_t)cfg.pipes, sizeof *s->rfds);
	s->wfds = calloc((size_t)cfg.pipes, sizeof *s->wfds);
	s->waiters = calloc((size_t)cfg.waiters, sizeof *s->waiters);
	s->threads = calloc((size_t)cfg.waiters, sizeof *s->threads);
	s->pids = calloc((size_t)cfg.waiters, sizeof *s->pids);
	int64_t max_iv = cfg.duration_ns / cfg.interval_ns + 1;
	s->rates = calloc((size_t)max_iv, sizeof *s->rates);
	if (!s->rfds || !s->wfds || !s->waiters || !s->threads || !s->pids || !s->rates)
		die("out of memory for %d pipes and %d waiters", cfg.pipes, cfg.waiters);
	for (int i = 0; i < cfg.pipes; i++) {
		if (pipe2(p, O_NONBLOCK | O_CLOEXEC) < 0)
			die("make pipe %d of %d (%llu descriptors open): %s", i + 1, cfg.pipes, open_fds(), strerror(errno));
		s->rfds[i] = p[0], s->wfds[i] = p[1];
	}
	size_t size = (size_t)cfg.waiters * sizeof(struct slot);
	s->board = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s->board == MAP_FAILED)
		die("map the counters board (%zu bytes): %s", size, strerror(errno));
	for (int i = 0; i < cfg.waiters; i++) {
		struct waiter *w = &s->waiters[i];
		*w = (struct waiter){.index = i, .epfd = -1, .credit_w = s->credit_w, .slot = &s->board[i]};
	}
	if (cfg.processes) {
		pid_t parent = getpid();
		fflush(stdout);
		for (int i = 0; i < cfg.waiters; i++) {
			pid_t pid = fork();
			if (pid < 0)
				die("fork waiter process %d: %s", i, strerror(errno));
			if (pid == 0)
				waiter_process_main(s, &s->waiters[i], parent);
			s->pids[i] = pid;
			s->started = i + 1;
		}
		return;
	}
	for (int i = 0; i < cfg.waiters; i++)
		if (waiter_open(&s->waiters[i], s->rfds, s->stop_r, s->exclusive) < 0)
			die("EPOLLEXCLUSIVE %s: waiter %d: %s", on_off(s->exclusive), i, s->waiters[i].err);
	for (int i = 0; i < cfg.waiters; i++) {
		start_thread(&s->threads[i], waiter_thread, &s->waiters[i], "waiter thread");
		s->started = i + 1;
	}
}

/* check_children fails on any waiter process that has exited, and returns
 * how many have; with all set, it only reaps (at the stop). */
static int check_children(struct side *s, int all)
{
	int done = 0;
	for (int i = 0; i < s->started && cfg.processes; i++) {
		if (s->pids[i] <= 0) {
			done++;
			continue;
		}
		int st;
		pid_t r = waitpid(s->pids[i], &st, WNOHANG);
		if (r != s->pids[i])
			continue;
		done++;
		if (WIFSIGNALED(st))
			fail("waiter process %d was killed by signal %d (%s)", (int)r, WTERMSIG(st), strsignal(WTERMSIG(st)));
		else if (WEXITSTATUS(st) != 0)
			fail("waiter process %d exited with status %d", (int)r, WEXITSTATUS(st));
		else if (!all)
			fail("waiter process %d exited before it was told to stop", (int)r);
		s->pids[i] = 0;
	}
	return done;
}

/* await_ready waits until every waiter's epoll set is complete and it is
 * about to wait. */
static void await_ready(struct side *s)
{
	int64_t deadline = now_ns() + 60 * SEC;
	for (;;) {
		int ready = 0;
		for (int i = 0; i < cfg.waiters; i++)
			ready += get(&s->board[i], F_READY) != 0;
		if (ready == cfg.waiters)
			return;
		check_children(s, 0);
		if (atomic_load(&failed))
			return;
		if (now_ns() > deadline) {
			fail("waiters not ready within 60s");
			return;
		}
		usleep(1000);
	}
}

static void *writer_thread(void *arg)
{
	struct side *s = arg;
	struct usage u0 = thread_usage();
	if (writer_run(&s->ws) < 0)
		fail("%s", s->ws.err);
	s->writer_usage = usage_sub(thread_usage(), u0);
	return NULL;
}

/* report closes an interval at every boundary until -d is over, a signal,
 * a failure or a stall. */
static void report(struct side *s, int64_t t0, struct counts start)
{
	struct counts prev = start;
	int64_t last = t0, last_token = t0;
	const int64_t stall = 3 * cfg.interval_ns > 2 * SEC ? 3 * cfg.interval_ns : 2 * SEC;
	for (int64_t k = 1; !interrupted; k++) {
		if (sleep_until(t0 + k * cfg.interval_ns) || interrupted)
			break;
		check_children(s, 0);
		if (atomic_load(&failed))
			return;
		int64_t now = now_ns();
		struct counts snap = board_sum(s->board, cfg.waiters), d = snap;
		counts_add(&d, &prev, -1);
		double secs = (double)(now - last) / 1e9;
		double rate = (double)d.events / secs;
		s->rates[s->nrates++] = rate;
		if (!cfg.csv) {
			printf("exclusive %s: %.0f evts/sec %.4g returns per token\n", on_off(s->exclusive), rate, per(d.returns, d.tokens));
			fflush(stdout);
		}
		prev = snap, last = now;
		if (d.tokens > 0) {
			last_token = now;
		} else if (now - last_token >= stall) {
			fail("stalled: no token received for %.3fs (%" PRIu64 " received before)", (double)(now - last_token) / 1e9, snap.tokens);
			return;
		}
		if (k * cfg.interval_ns >= cfg.duration_ns)
			return;
	}
	s->interrupted = 1;
}

static void join_or_die(pthread_t t, const char *what)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 10;
	if (pthread_timedjoin_np(t, NULL, &ts) != 0)
		die("%s did not stop within 10s", what);
}

/* stop_waiters writes the stop byte, which every waiter's epoll set
 * reports, and waits for them all. */
static void stop_waiters(struct side *s)
{
	if (write(s->stop_w, "s", 1) != 1)
		die("write the stop byte: %s", strerror(errno));
	if (!cfg.processes) {
		for (int i = 0; i < s->started; i++)
			join_or_die(s->threads[i], "a waiter thread");
		return;
	}
	int64_t deadline = now_ns() + 10 * SEC;
	while (check_children(s, 1) < s->started) {
		if (now_ns() > deadline) {
			for (int i = 0; i < s->started; i++)
				if (s->pids[i] > 0)
					kill(s->pids[i], SIGKILL);
			die("waiter processes did not stop within 10s; killed");
		}
		usleep(1000);
	}
}

static uint64_t drain(struct side *s)
{
	char buf[65536];
	uint64_t total = 0;
	for (int i = 0; i < cfg.pipes; i++)
		for (;;) {
			ssize_t n = read(s->rfds[i], buf, sizeof buf);
			if (n <= 0) {
				if (n < 0 && errno != EAGAIN)
					die("drain pipe %d (fd %d): %s", i, s->rfds[i], strerror(errno));
				break;
			}
			total += (uint64_t)n;
		}
	return total;
}

/* collect reads every waiter's final counts and usage from the board. */
static void collect(struct side *s)
{
	s->totals = board_sum(s->board, cfg.waiters);
	for (int i = 0; i < cfg.waiters; i++) {
		struct slot *sl = &s->board[i];
		s->waiter_usage.user_ns += (int64_t)get(sl, F_USER);
		s->waiter_usage.sys_ns += (int64_t)get(sl, F_SYS);
		s->waiter_usage.voluntary += (int64_t)get(sl, F_VOLUNTARY);
		s->waiter_usage.involuntary += (int64_t)get(sl, F_INVOLUNTARY);
		uint64_t t = get(sl, F_TOKENS);
		if (i == 0 || t < s->min_tokens)
			s->min_tokens = t;
		if (t > s->max_tokens)
			s->max_tokens = t;
	}
}

static void release(struct side *s)
{
	for (int i = 0; i < cfg.waiters; i++)
		waiter_close(&s->waiters[i]);
	for (int i = 0; i < cfg.pipes; i++)
		close(s->rfds[i]), close(s->wfds[i]);
	close(s->stop_r), close(s->stop_w), close(s->credit_r), close(s->credit_w);
	munmap(s->board, (size_t)cfg.waiters * sizeof(struct slot));
	free(s->rfds), free(s->wfds), free(s->waiters), free(s->threads), free(s->pids);
}

/* run_side measures one setting from setup to teardown. */
static void run_side(struct side *s)
{
	int64_t t_setup = now_ns();
	setup(s);
	await_ready(s);
	if (!atomic_load(&failed)) {
		s->setup_ns = now_ns() - t_setup;
		if (!cfg.csv) {
			printf("exclusive %s: %d waiters ready in %.0fms\n", on_off(s->exclusive), cfg.waiters, (double)s->setup_ns / 1e6);
			fflush(stdout);
		}
		struct counts start = board_sum(s->board, cfg.waiters);
		int64_t t0 = now_ns();
		s->ws = (struct writer_state){.wfds = s->wfds, .route = router_new(0, cfg.seed, cfg.pipes),
					      .in_flight = cfg.in_flight, .credit_r = s->credit_r, .poll_first = 1};
		start_thread(&s->writer, writer_thread, s, "writer thread");
		s->writer_started = 1;
		s->measured = 1;
		report(s, t0, start);
		s->window = board_sum(s->board, cfg.waiters);
		counts_add(&s->window, &start, -1);
		s->elapsed_ns = now_ns() - t0;
	}
	stop_waiters(s);
	if (s->writer_started) {
		if (write(s->credit_w, &STOP_CREDIT, 8) != 8)
			die("tell the writer to stop: %s", strerror(errno));
		join_or_die(s->writer, "the writer thread");
	}
	collect(s);
	s->drained = drain(s);
	s->sent = s->ws.sent;
	s->lost = (int64_t)s->sent - (int64_t)s->totals.tokens - (int64_t)s->drained;
	if (s->measured && s->lost != 0)
		fail("tokens do not add up: sent %" PRIu64 ", received %" PRIu64 ", drained %" PRIu64 " at teardown: %" PRId64 " lost",
		     s->sent, s->totals.tokens, s->drained, s->lost);
	release(s);
}

/* ---- the figures, as pipebench's herd.Side.Figures --------------------------- */

struct row {
	const char *label, *key;
	double (*value)(const struct side *);
	int kind; /* 0: %.0f, 1: %.4g, 2: nanoseconds */
};

static double warm_median(const struct side *s)
{
	int n = s->nrates - cfg.warmup;
	return n > 0 ? median(s->rates + cfg.warmup, n) : 0;
}
static double tokens_per_sec(const struct side *s)
{
	return s->elapsed_ns > 0 ? (double)s->window.tokens / ((double)s->elapsed_ns / 1e9) : 0;
}
/* wake-ups: the waiters' voluntary context switches, less their timeouts */
static double wakeups(const struct side *s)
{
	int64_t sleeps = s->waiter_usage.voluntary - (int64_t)s->totals.timeouts;
	return per(sleeps > 0 ? (uint64_t)sleeps : 0, s->totals.tokens);
}
static double returns(const struct side *s) { return per(s->totals.returns, s->totals.tokens); }
static double wasted_returns(const struct side *s) { return per(s->totals.wasted_returns, s->totals.tokens); }
static double wasted_reads(const struct side *s) { return per(s->totals.wasted_reads, s->totals.tokens); }
static double sys_ns(const struct side *s) { return (double)s->waiter_usage.sys_ns; }
static double sys_per(const struct side *s) { return per((uint64_t)s->waiter_usage.sys_ns, s->totals.tokens); }
static double user_per(const struct side *s) { return per((uint64_t)s->waiter_usage.user_ns, s->totals.tokens); }
static double writer_sys_per(const struct side *s) { return per((uint64_t)s->writer_usage.sys_ns, s->sent); }

static const struct row rows[] = {
	{"evts/sec (median)", "evts_per_sec_median", warm_median, 0},
	{"tokens/sec", "tokens_per_sec", tokens_per_sec, 0},
	{"wake-ups per token", "wakeups_per_token", wakeups, 1},
	{"returns per token", "returns_per_token", returns, 1},
	{"wasted returns per token", "wasted_returns_per_token", wasted_returns, 1},
	{"wasted reads per token", "wasted_reads_per_token", wasted_reads, 1},
	{"waiters' sys CPU", "waiters_sys_ns", sys_ns, 2},
	{"waiters' sys CPU per token", "sys_ns_per_token", sys_per, 2},
	{"waiters' user CPU per token", "user_ns_per_token", user_per, 2},
	{"writer's sys CPU per token", "writer_sys_ns_per_token", writer_sys_per, 2},
};
enum { NROWS = sizeof rows / sizeof rows[0] };

static const char *show(const struct row *r, double v, char *buf, size_t size)
{
	if (r->kind == 2)
		return nanos(v, buf, size);
	snprintf(buf, size, r->kind == 0 ? "%.0f" : "%.4g", v);
	return buf;
}

static const char *shape(char *buf, size_t size)
{
	snprintf(buf, size, "%d waiter %s, %d pipes, %d tokens in flight", cfg.waiters,
		 cfg.processes ? "processes" : "threads", cfg.pipes, cfg.in_flight);
	return buf;
}

static void write_text(const struct side *sides, int n)
{
	char b[128], dur[32];
	printf("--- yardstick herd: %s, %s measured per setting\n", shape(b, sizeof b), nanos((double)cfg.duration_ns, dur, sizeof dur));
	int both = n == 2 && !sides[0].exclusive && sides[1].exclusive;
	printf("%-30s", "EPOLLEXCLUSIVE");
	for (int i = 0; i < n; i++)
		printf(" %12s", on_off(sides[i].exclusive));
	printf(both ? " %8s\n" : "\n", "off/on");
	for (int r = 0; r < NROWS; r++) {
		printf("%-30s", rows[r].label);
		for (int i = 0; i < n; i++) {
			show(&rows[r], rows[r].value(&sides[i]), b, sizeof b);
			printf(" %*s", cell(b, 12), b);
		}
		if (both) {
			double on = rows[r].value(&sides[1]);
			if (on == 0)
				printf(" %8s", "n/a");
			else
				printf(" %8.4g", rows[r].value(&sides[0]) / on);
		}
		printf("\n");
	}
	printf("%-30s", "tokens per waiter (min..max)");
	for (int i = 0; i < n; i++) {
		snprintf(b, sizeof b, "%" PRIu64 "..%" PRIu64, sides[i].min_tokens, sides[i].max_tokens);
		printf(" %12s", b);
	}
	printf("\n");
	for (int i = 0; i < n; i++) {
		const struct side *s = &sides[i];
		printf("tokens, exclusive %-4s sent %" PRIu64 "  received %" PRIu64 "  drained %" PRIu64 "  lost %" PRId64 "  (%.3fs %s)\n",
		       s->exclusive ? "on:" : "off:", s->sent, s->totals.tokens, s->drained, s->lost,
		       (double)s->elapsed_ns / 1e9, s->interrupted ? "interrupted" : "measured");
	}
	printf("wake-ups: the waiters' voluntary context switches (sleeps ended) less timeouts; returns: waits that returned a ready pipe\n");
	printf("blocking: waiters in epoll_pwait (%d ms timeout), the writer in ppoll then read, plain C system calls\n", WAIT_TIMEOUT_MS);
}

/* write_csv writes pipebench herd -format csv's columns. */
static void write_csv(const struct side *sides, int n)
{
	printf("exclusive,waiters,mode,pipes,in_flight,seconds,interrupted");
	for (int r = 0; r < NROWS; r++)
		printf(",%s", rows[r].key);
	printf(",min_waiter_tokens,max_waiter_tokens,sent,received,drained,lost\n");
	for (int i = 0; i < n; i++) {
		const struct side *s = &sides[i];
		printf("%s,%d,%s,%d,%d,%.9g,%s", on_off(s->exclusive), cfg.waiters, cfg.processes ? "processes" : "threads",
		       cfg.pipes, cfg.in_flight, (double)s->elapsed_ns / 1e9, s->interrupted ? "true" : "false");
		for (int r = 0; r < NROWS; r++)
			printf(",%.10g", rows[r].value(s));
		printf(",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRId64 "\n", s->min_tokens, s->max_tokens,
		       s->sent, s->totals.tokens, s->drained, s->lost);
	}
}

/* ---- flags and the plan --------------------------------------------------------- */

static int64_t parse_span(const char *flag, const char *s)
{
	int64_t d;
	if (duration_ns(s, &d) < 0 || d < 10 * MS || d > 3600 * SEC)
		usage_error("%s %s: want a duration from 10ms to 1h such as 10s or 500ms", flag, s);
	return d;
}

static void parse_flags(int argc, char **argv)
{
	static const char *const modes[] = {"threads", "processes"};
	static const char *const settings[] = {"both", "off", "on"};
	static const char *const formats[] = {"text", "csv"};
	cfg = (struct config){.waiters = 8, .pipes = 100, .in_flight = 1, .warmup = 1, .seed = 1,
			      .duration_ns = 3 * SEC, .interval_ns = 500 * MS, .exclusive = {0, 1}, .settings = 2};
	const char *d = "3s", *iv = "500ms";
	char name[32];
	const char *val;
	for (int i = 1, r; (r = next_flag(argc, argv, &i, name, &val)) != 0;) {
		if (r < 0) {
			printf("usage: " PROG " [-waiters K] [-mode threads|processes] [-n pipes] [-l tokens]\n"
			       "                      [-exclusive both|off|on] [-seed S] [-d duration] [-i interval]\n"
			       "                      [-warmup K] [-format text|csv]\n");
			exit(0);
		}
		if (strcmp(name, "waiters") == 0)
			cfg.waiters = (int)parse_int("-waiters", val, 1, MAX_WAITERS);
		else if (strcmp(name, "mode") == 0)
			cfg.processes = parse_choice("-mode", val, modes, 2, "threads or processes");
		else if (strcmp(name, "n") == 0)
			cfg.pipes = (int)parse_int("-n", val, 1, MAX_PIPES);
		else if (strcmp(name, "l") == 0)
			cfg.in_flight = (int)parse_int("-l", val, 1, MAX_IN_FLIGHT);
		else if (strcmp(name, "exclusive") == 0) {
			int c = parse_choice("-exclusive", val, settings, 3, "both, off or on");
			cfg.settings = c == 0 ? 2 : 1;
			cfg.exclusive[0] = c == 2;
		} else if (strcmp(name, "seed") == 0) {
			char *end;
			errno = 0;
			cfg.seed = strtoull(val, &end, 10);
			if (errno || end == val || *end || val[0] == '-')
				usage_error("-seed %s: want an integer from 0 to %" PRIu64, val, UINT64_MAX);
		} else if (strcmp(name, "d") == 0)
			cfg.duration_ns = parse_span("-d", d = val);
		else if (strcmp(name, "i") == 0)
			cfg.interval_ns = parse_span("-i", iv = val);
		else if (strcmp(name, "warmup") == 0)
			cfg.warmup = (int)parse_int("-warmup", val, 0, 1000);
		else if (strcmp(name, "format") == 0)
			cfg.csv = parse_choice("-format", val, formats, 2, "text or csv");
		else
			usage_error("flag provided but not defined: -%s", name);
	}
	if (cfg.interval_ns > cfg.duration_ns)
		usage_error("-i %s is longer than -d %s: want an interval no longer than the duration", iv, d);
}

static unsigned long long max_user_watches(void)
{
	FILE *f = fopen("/proc/sys/fs/epoll/max_user_watches", "r");
	unsigned long long n = 0;
	if (f) {
		if (fscanf(f, "%llu", &n) != 1)
			n = 0;
		fclose(f);
	}
	return n;
}

/* plan refuses, before any pipe is made, a run that cannot fit: the
 * measuring process holds both ends of every pipe, the stop and credit
 * pipes and (threads) every waiter's epoll descriptor; a forked waiter
 * holds fewer (it closes what it does not use). */
static void plan(unsigned long long limit)
{
	unsigned long long need = open_fds() + 2ULL * (unsigned long long)cfg.pipes + 4;
	if (!cfg.processes)
		need += (unsigned long long)cfg.waiters;
	if (need > limit)
		usage_error("-n %d with -waiters %d (%s) needs %llu descriptors in one process, limit is %llu (RLIMIT_NOFILE hard limit): use fewer pipes or waiters",
			    cfg.pipes, cfg.waiters, cfg.processes ? "processes" : "threads", need, limit);
	unsigned long long watches = max_user_watches(), w = (unsigned long long)cfg.waiters * (unsigned long long)(cfg.pipes + 1);
	if (watches > 0 && w > watches)
		usage_error("-n %d with -waiters %d needs %llu epoll registrations, more than fs.epoll.max_user_watches %llu: use fewer pipes or waiters",
			    cfg.pipes, cfg.waiters, w, watches);
}

int main(int argc, char **argv)
{
	parse_flags(argc, argv);
	signal(SIGPIPE, SIG_IGN);
	plan(raise_nofile());
	catch_signals();
	if (!cfg.csv) {
		char b[128], dur[32];
		printf("herd: %s, EPOLLEXCLUSIVE %s, %s each\n", shape(b, sizeof b),
		       cfg.settings == 2 ? "off, then on" : on_off(cfg.exclusive[0]), nanos((double)cfg.duration_ns, dur, sizeof dur));
		fflush(stdout);
	}
	struct side sides[2];
	int n = 0, last = cfg.exclusive[0];
	for (int i = 0; i < cfg.settings && !interrupted && !atomic_load(&failed); i++) {
		sides[n] = (struct side){.exclusive = last = cfg.exclusive[i]};
		run_side(&sides[n]);
		if (sides[n].measured)
			n++;
	}
	if (cfg.csv)
		write_csv(sides, n);
	else
		write_text(sides, n);
	fflush(stdout);
	for (int i = 0; i < n; i++)
		free(sides[i].rates);
	if (atomic_load(&failed))
		die("EPOLLEXCLUSIVE %s: %s", on_off(last), fail_msg);
	return 0;
}
