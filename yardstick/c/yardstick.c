/*
 * yardstick: a plain C program that makes the system calls of pipebench's
 * reader loop, so that the harness's own cost can be measured against it.
 * See ../README.md. Written from pipebench's design (DESIGN.md), not from
 * epoll_pipe_bench.
 *
 *   yardstick [-n pipes] [-l tokens] [-b epoll|poll|select]
 *             [-writer self|thread] [-route random|next] [-seed S]
 *             [-d duration] [-i interval] [-warmup K]
 *
 * The workload is pipebench's: N pipes made with pipe2(O_NONBLOCK), every
 * read end registered for readability, L one-byte tokens in flight. The
 * reader waits (epoll_pwait, ppoll or pselect6, each with a 100 ms timeout),
 * reads every reported pipe once (up to 1024 bytes: one event), and
 *   -writer self:   writes each token it read, one byte a write, into the
 *                   next pipe (xorshift64* route reduced by multiply-shift);
 *   -writer thread: returns the tokens it read as one 8-byte credit word
 *                   per readiness call to a writer thread, which writes one
 *                   token per credit and blocks reading credits.
 * The reader publishes its counters once per readiness call; the main thread
 * prints "N evts/sec S samples per call" every interval, then a summary and
 * the token accounting (sent = received + drained at teardown).
 *
 * Build: gcc -O2 -pthread -o yardstick yardstick.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { READ_SIZE = 1024 };          /* one read takes at most this much */
enum { MAX_EVENTS = 65536 };        /* epoll_wait reports at most this many */
enum { MAX_IN_FLIGHT = 4096 };      /* as pipebench's -l bound */
enum { MAX_PIPES = 1000000 };
enum { CREDIT_PIPE_SIZE = 1 << 16 };
static const int WAIT_TIMEOUT_MS = 100;
static const uint64_t STOP_CREDIT = ~(uint64_t)0;

enum backend { B_EPOLL, B_POLL, B_SELECT };
static const char *const backend_names[] = {"epoll", "poll", "select"};
enum writer { W_SELF, W_THREAD };
static const char *const writer_names[] = {"self", "thread"};

struct config {
	int pipes, in_flight, warmup;
	enum backend backend;
	enum writer writer;
	int route_next;
	uint64_t seed;
	int64_t duration_ns, interval_ns;
};

/* ---- failures ---------------------------------------------------------- */

static void usage_error(const char *fmt, ...)
{
	va_list ap;
	fputs("yardstick: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void die(const char *fmt, ...)
{
	va_list ap;
	fflush(stdout);
	fputs("yardstick: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* The first failure of the reader or writer thread; the run then ends. */
static pthread_mutex_t fail_mu = PTHREAD_MUTEX_INITIALIZER;
static char fail_msg[256];
static atomic_int failed;
static atomic_int stop;
static volatile sig_atomic_t interrupted;

static void fail(const char *fmt, ...)
{
	va_list ap;
	pthread_mutex_lock(&fail_mu);
	if (!atomic_load(&failed)) {
		va_start(ap, fmt);
		vsnprintf(fail_msg, sizeof fail_msg, fmt, ap);
		va_end(ap);
		atomic_store(&failed, 1);
	}
	pthread_mutex_unlock(&fail_mu);
	atomic_store(&stop, 1);
}

/* ---- the route ----------------------------------------------------------- */

struct router {
	uint64_t state, n, last;
	int next;
};

static struct router router_new(int next, uint64_t seed, int pipes)
{
	/* splitmix64 turns any seed, 0 included, into a valid xorshift state */
	uint64_t z = seed + 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	if (z == 0)
		z = 1;
	return (struct router){.state = z, .n = (uint64_t)pipes, .next = next};
}

/* pick: xorshift64*, reduced to [0, n) by multiply-shift; or i+1. */
static inline uint32_t pick(struct router *r)
{
	if (r->next) {
		if (++r->last >= r->n)
			r->last = 0;
		return (uint32_t)r->last;
	}
	uint64_t x = r->state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	r->state = x;
	uint64_t v = (x * 0x2545f4914f6cdd1dULL) >> 32;
	return (uint32_t)((v * r->n) >> 32);
}

static inline uint32_t after(struct router *r, uint32_t i)
{
	if (r->next)
		r->last = i;
	return pick(r);
}

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

/* ---- the pipes and the backends ----------------------------------------- */

static int npipes;
static int *rfds, *wfds;
static int32_t *ready;          /* tags (pipe indices) reported by a wait */

static int epfd = -1;
static struct epoll_event *epevents;
static int epmax;

static struct pollfd *pfds;     /* pfds[i] is pipe i */

static uint64_t *sel_interest, *sel_work; /* bitmaps sized to the largest fd */
static int32_t *sel_tags;                 /* sel_tags[fd] */
static int sel_nfds;

static void backend_open(enum backend b, int pipes, int maxfd)
{
	switch (b) {
	case B_EPOLL:
		epfd = epoll_create1(EPOLL_CLOEXEC);
		if (epfd < 0)
			die("epoll_create1: %s", strerror(errno));
		epmax = pipes < MAX_EVENTS ? pipes : MAX_EVENTS;
		epevents = calloc((size_t)epmax, sizeof *epevents);
		break;
	case B_POLL:
		pfds = calloc((size_t)pipes, sizeof *pfds);
		break;
	case B_SELECT: {
		size_t words = (size_t)maxfd / 64 + 1;
		sel_interest = calloc(words, 8);
		sel_work = calloc(words, 8);
		sel_tags = calloc(words * 64, sizeof *sel_tags);
		break;
	}
	}
	if ((b == B_EPOLL && !epevents) || (b == B_POLL && !pfds) ||
	    (b == B_SELECT && (!sel_interest || !sel_work || !sel_tags)))
		die("out of memory for %d pipes", pipes);
}

static void backend_add(enum backend b, int fd, int32_t tag)
{
	switch (b) {
	case B_EPOLL: {
		struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)tag};
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
	}
}

/*
 * backend_wait makes one readiness call with the 100 ms timeout and stores
 * the tags of the ready pipes in ready[]. The calls are the ones pipebench
 * makes through golang.org/x/sys: epoll_pwait and ppoll with no signal mask,
 * pselect6. EINTR is retried (signals are blocked on this thread, so it
 * does not happen).
 */
static inline int backend_wait(enum backend b)
{
	int n;
	switch (b) {
	case B_EPOLL:
		do
			n = epoll_pwait(epfd, epevents, epmax, WAIT_TIMEOUT_MS, NULL);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			fail("epoll_pwait: %s", strerror(errno));
		for (int i = 0; i < n; i++)
			ready[i] = (int32_t)epevents[i].data.u32;
		return n;
	case B_POLL: {
		struct timespec ts = {0, WAIT_TIMEOUT_MS * 1000000L};
		do
			n = ppoll(pfds, (nfds_t)npipes, &ts, NULL);
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
			/* the bare system call, as pipebench makes it: no signal mask */
			n = (int)syscall(SYS_pselect6, sel_nfds, sel_work, NULL, NULL, &ts, NULL);
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
	}
	return -1;
}

/* ---- the reader ------------------------------------------------------------ */

struct reader_args {
	struct config cfg;
	int credit_w; /* write end of the credit pipe, or -1 in self mode */
	pthread_barrier_t *start;
	struct counts final;
};

static const char token = 't';

static void *reader(void *arg)
{
	struct reader_args *ra = arg;
	const enum backend b = ra->cfg.backend;
	const int self = ra->cfg.writer == W_SELF;
	const int credit_w = ra->credit_w;
	struct router route = router_new(ra->cfg.route_next, ra->cfg.seed, ra->cfg.pipes);
	struct counts c = {0};
	static char buf[READ_SIZE];

	pthread_barrier_wait(ra->start);
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
			ssize_t m = read(fd, buf, READ_SIZE);
			c.reads++;
			if (m < 0) {
				if (errno == EAGAIN) {
					c.spurious++;
					continue;
				}
				fail("read pipe %u (fd %d): %s", tag, fd, strerror(errno));
				goto out;
			}
			if (m == 0) {
				fail("pipe %u reached end of file: its writer closed it", tag);
				goto out;
			}
			c.events++;
			tokens += (uint64_t)m;
			if (self) {
				for (ssize_t t = 0; t < m; t++) {
					uint32_t j = after(&route, tag);
					if (write(wfds[j], &token, 1) != 1) {
						fail("forward token to pipe %u (fd %d): %s", j, wfds[j], strerror(errno));
						goto out;
					}
				}
				c.writes += (uint64_t)m;
			}
		}
		c.tokens += tokens;
		if (credit_w >= 0 && tokens > 0) {
			if (write(credit_w, &tokens, 8) != 8) { /* little-endian, as pipebench's */
				fail("write %" PRIu64 " credits: %s", tokens, strerror(errno));
				goto out;
			}
			c.writes++;
		}
		publish(&c);
	}
out:
	publish(&c);
	ra->final = c;
	return NULL;
}

/* ---- the writer thread ----------------------------------------------------- */

struct writer_args {
	struct config cfg;
	int credit_r;
	pthread_barrier_t *start;
	uint64_t sent;
};

static void *writer(void *arg)
{
	struct writer_args *wa = arg;
	struct router route = router_new(wa->cfg.route_next, wa->cfg.seed, wa->cfg.pipes);
	uint64_t have = (uint64_t)wa->cfg.in_flight;
	static uint64_t buf[512];

	pthread_barrier_wait(wa->start);
	for (;;) {
		for (; have > 0; have--) {
			uint32_t j = pick(&route);
			if (write(wfds[j], &token, 1) != 1) {
				fail("writer: write token to pipe %u (fd %d): %s", j, wfds[j], strerror(errno));
				return NULL;
			}
			wa->sent++;
		}
		ssize_t n;
		do
			n = read(wa->credit_r, buf, sizeof buf);
		while (n < 0 && errno == EINTR);
		if (n < 0) {
			fail("writer: read credits: %s", strerror(errno));
			return NULL;
		}
		if (n == 0 || n % 8 != 0) {
			fail("writer: %s on the credit pipe", n == 0 ? "end of file" : "torn credit word");
			return NULL;
		}
		for (ssize_t i = 0; i < n / 8; i++) {
			if (buf[i] == STOP_CREDIT)
				return NULL;
			have += buf[i];
		}
	}
}

/* ---- flags ----------------------------------------------------------------- */

static long long parse_int(const char *flag, const char *s, long long lo, long long hi)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		usage_error("%s %s: want an integer from %lld to %lld", flag, s, lo, hi);
	return v;
}

/* parse_duration takes Go's forms: "0" or one or more number+unit ("1m30s",
 * "1.5s", "300ms"); units ns, us, ms, s, m, h. */
static int64_t parse_duration(const char *flag, const char *s)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}, {"h", 3600e9}};
	if (strcmp(s, "0") == 0)
		return 0;
	double total = 0;
	const char *p = s;
	if (!*p)
		goto bad;
	while (*p) {
		char *end;
		if (!(*p >= '0' && *p <= '9') && *p != '.')
			goto bad;
		double v = strtod(p, &end);
		if (end == p)
			goto bad;
		p = end;
		size_t len = 0;
		while (p[len] && !(p[len] >= '0' && p[len] <= '9') && p[len] != '.')
			len++;
		size_t u;
		for (u = 0; u < sizeof units / sizeof units[0]; u++)
			if (strlen(units[u].unit) == len && strncmp(p, units[u].unit, len) == 0)
				break;
		if (u == sizeof units / sizeof units[0])
			goto bad;
		total += v * units[u].ns;
		p += len;
	}
	if (total > 24 * 3600e9)
		goto bad;
	return (int64_t)total;
bad:
	usage_error("%s %s: want a duration such as 3s or 500ms", flag, s);
	return 0;
}

static int parse_choice(const char *flag, const char *s, const char *const *names, int n, const char *want)
{
	for (int i = 0; i < n; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	usage_error("%s %s: want %s", flag, s, want);
	return 0;
}

static struct config parse_flags(int argc, char **argv)
{
	struct config c = {.pipes = 1000, .in_flight = 1, .warmup = 1, .backend = B_EPOLL,
			   .writer = W_THREAD, .seed = 1, .duration_ns = 10000000000LL,
			   .interval_ns = 1000000000LL};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (a[0] != '-' || a[1] == 0)
			usage_error("unexpected argument \"%s\": yardstick takes flags only", a);
		a += (a[1] == '-') ? 2 : 1; /* -flag and --flag, as Go's flag package */
		char name[32];
		const char *val = strchr(a, '=');
		size_t len = val ? (size_t)(val - a) : strlen(a);
		if (len >= sizeof name)
			len = sizeof name - 1;
		memcpy(name, a, len);
		name[len] = 0;
		if (strcmp(name, "h") == 0 || strcmp(name, "help") == 0) {
			printf("usage: yardstick [-n pipes] [-l tokens] [-b epoll|poll|select] [-writer self|thread]\n"
			       "                 [-route random|next] [-seed S] [-d duration] [-i interval] [-warmup K]\n");
			exit(0);
		}
		if (val)
			val++;
		else if (i + 1 < argc)
			val = argv[++i];
		else
			usage_error("-%s: flag needs an argument", name);
		if (strcmp(name, "n") == 0)
			c.pipes = (int)parse_int("-n", val, 1, MAX_PIPES);
		else if (strcmp(name, "l") == 0)
			c.in_flight = (int)parse_int("-l", val, 1, MAX_IN_FLIGHT);
		else if (strcmp(name, "warmup") == 0)
			c.warmup = (int)parse_int("-warmup", val, 0, 1000);
		else if (strcmp(name, "seed") == 0)
			c.seed = (uint64_t)parse_int("-seed", val, 0, INT64_MAX);
		else if (strcmp(name, "b") == 0)
			c.backend = parse_choice("-b", val, backend_names, 3, "epoll, poll or select");
		else if (strcmp(name, "writer") == 0)
			c.writer = parse_choice("-writer", val, writer_names, 2, "self or thread");
		else if (strcmp(name, "route") == 0)
			c.route_next = parse_choice("-route", val, (const char *const[]){"random", "next"}, 2, "random or next");
		else if (strcmp(name, "d") == 0)
			c.duration_ns = parse_duration("-d", val);
		else if (strcmp(name, "i") == 0)
			c.interval_ns = parse_duration("-i", val);
		else
			usage_error("flag provided but not defined: -%s", name);
	}
	if (c.interval_ns < 10000000LL)
		usage_error("-i: want an interval of at least 10ms");
	if (c.duration_ns > 0 && c.interval_ns > c.duration_ns)
		usage_error("-i is longer than -d: want an interval no longer than the duration");
	return c;
}

/* ---- setup, measurement, teardown --------------------------------------------- */

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *xs, int n)
{
	qsort(xs, (size_t)n, sizeof *xs, cmp_double);
	return n % 2 ? xs[n / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2;
}

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

static double per(uint64_t x, uint64_t events) { return events ? (double)x / (double)events : 0; }

int main(int argc, char **argv)
{
	struct config cfg = parse_flags(argc, argv);
	npipes = cfg.pipes;

	struct rlimit lim;
	if (getrlimit(RLIMIT_NOFILE, &lim) < 0)
		die("getrlimit RLIMIT_NOFILE: %s", strerror(errno));
	if (lim.rlim_cur < lim.rlim_max) {
		lim.rlim_cur = lim.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &lim) < 0)
			die("raise RLIMIT_NOFILE to %llu: %s", (unsigned long long)lim.rlim_max, strerror(errno));
	}
	/* stdio, the credit pipe and the epoll descriptor, then both ends of every pipe */
	unsigned long long need = 3 + 2 + 1 + 2ULL * (unsigned long long)cfg.pipes;
	if (need > (unsigned long long)lim.rlim_cur)
		usage_error("-n %d: needs %llu descriptors, the limit is %llu: want fewer pipes or a higher hard limit",
			    cfg.pipes, need, (unsigned long long)lim.rlim_cur);

	int64_t t_setup = now_ns();
	int credit_r = -1, credit_w = -1;
	if (cfg.writer == W_THREAD) {
		/* made before the pipes, so that it gets a full-sized buffer */
		int p[2];
		if (pipe2(p, O_CLOEXEC) < 0)
			die("make credit pipe: %s", strerror(errno));
		if (fcntl(p[1], F_SETPIPE_SZ, CREDIT_PIPE_SIZE) < 0)
			die("size credit pipe to %d bytes: %s", CREDIT_PIPE_SIZE, strerror(errno));
		if (fcntl(p[1], F_SETFL, O_NONBLOCK) < 0)
			die("credit pipe: %s", strerror(errno));
		credit_r = p[0];
		credit_w = p[1];
	}
	rfds = calloc((size_t)cfg.pipes, sizeof *rfds);
	wfds = calloc((size_t)cfg.pipes, sizeof *wfds);
	ready = calloc((size_t)cfg.pipes, sizeof *ready);
	if (!rfds || !wfds || !ready)
		die("out of memory for %d pipes", cfg.pipes);
	backend_open(cfg.backend, cfg.pipes, (int)lim.rlim_cur - 1);
	for (int i = 0; i < cfg.pipes; i++) {
		int p[2];
		if (pipe2(p, O_NONBLOCK | O_CLOEXEC) < 0)
			die("make pipe %d of %d: %s", i + 1, cfg.pipes, strerror(errno));
		rfds[i] = p[0];
		wfds[i] = p[1];
		backend_add(cfg.backend, p[0], i);
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
	sigset_t sigs, old;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, &old);
	pthread_barrier_t start;
	pthread_barrier_init(&start, NULL, cfg.writer == W_THREAD ? 3 : 2);
	struct reader_args ra = {.cfg = cfg, .credit_w = credit_w, .start = &start};
	struct writer_args wa = {.cfg = cfg, .credit_r = credit_r, .start = &start};
	pthread_t rt, wt;
	int e;
	if ((e = pthread_create(&rt, NULL, reader, &ra)) != 0)
		die("start reader thread: %s", strerror(e));
	if (cfg.writer == W_THREAD && (e = pthread_create(&wt, NULL, writer, &wa)) != 0)
		die("start writer thread: %s", strerror(e));
	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);

	int64_t max_iv = cfg.duration_ns > 0 ? cfg.duration_ns / cfg.interval_ns : 1 << 20;
	double *rates = calloc((size_t)max_iv + 1, sizeof *rates);
	int nrates = 0;
	int64_t t0 = now_ns(), last = t0, last_event = t0;
	pthread_barrier_wait(&start);
	struct counts prev = {0};
	for (int64_t k = 1; !interrupted && !atomic_load(&failed); k++) {
		int64_t due = t0 + k * cfg.interval_ns;
		struct timespec ts = {due / 1000000000LL, due % 1000000000LL};
		if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0)
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
	struct counts tot = ra.final;
	uint64_t sent;
	if (cfg.writer == W_THREAD) {
		if (write(credit_w, &STOP_CREDIT, 8) != 8)
			fail("tell the writer to stop: %s", strerror(errno));
		pthread_join(wt, NULL);
		sent = wa.sent;
	} else {
		sent = primed + tot.writes;
	}
	uint64_t drained = drain();
	int64_t lost = (int64_t)sent - (int64_t)tot.tokens - (int64_t)drained;

	int warm = nrates > cfg.warmup ? cfg.warmup : 0;
	printf("--- yardstick: %s, %d pipes, %d tokens in flight, writer %s, %s %.3fs\n",
	       backend_names[cfg.backend], cfg.pipes, cfg.in_flight, writer_names[cfg.writer],
	       interrupted ? "interrupted after" : "measured", elapsed);
	if (nrates > 0)
		printf("evts/sec       median %.0f  (n=%d intervals, %d warm-up left out)\n",
		       median(rates + warm, nrates - warm), nrates - warm, warm);
	else
		printf("evts/sec       no full interval\n");
	printf("samples/call   %g  (%" PRIu64 " readiness calls, %" PRIu64 " empty)\n",
	       tot.calls > tot.empty ? (double)tot.events / (double)(tot.calls - tot.empty) : 0.0,
	       tot.calls, tot.empty);
	printf("per event      calls %.4g  reads %.4g  writes %.4g\n", per(tot.calls, tot.events),
	       per(tot.reads, tot.events), per(tot.writes + (cfg.writer == W_THREAD ? sent : 0), tot.events));
	printf("setup          %d pipes in %.1f ms\n", cfg.pipes, setup_ms);
	printf("tokens         sent %" PRIu64 "  received %" PRIu64 "  drained %" PRIu64 "  lost %" PRId64 "\n",
	       sent, tot.tokens, drained, lost);
	fflush(stdout);
	if (atomic_load(&failed))
		die("%s", fail_msg);
	if (lost != 0)
		die("tokens do not add up: sent %" PRIu64 ", received %" PRIu64 ", drained %" PRIu64 ": %" PRId64 " lost",
		    sent, tot.tokens, drained, lost);
	return 0;
}
