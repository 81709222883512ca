/*
 * timeout: the C counterpart of `pipebench timeout` (../../experiment/timeout/): how
 * late each readiness call wakes when its timeout runs out on a pipe nobody
 * writes, measured by one plain C thread. See ../README.md.
 *
 *   yardstick-timeout [-timeouts LIST] [-mechanisms LIST] [-samples N]
 *                     [-slack D] [-format text|csv]
 *
 * Mechanisms, each watching the read end of an idle pipe: epoll_wait (the
 * epoll_pwait system call with whole milliseconds, the request rounded up),
 * epoll_pwait2 (a timespec), ppoll, pselect6 (the bare system call) and
 * epoll+timerfd (epoll_pwait over the pipe and a timerfd armed, relative,
 * for the request). Overshoot = the monotonic time the call took less the
 * time requested. Samples of every mechanism and timeout are interleaved
 * round by round, each round starting one point further on; a sleep cut
 * short by a signal (EINTR) is discarded and taken again. Per point: min,
 * p50, p99 and max (the empirical quantile: the smallest sample with at
 * least that share of the samples at or below it, as gonum's).
 *
 * Build: gcc -O2 -std=c11 -Wall -Wextra -Werror -o yardstick-timeout timeout.c
 */
#define _GNU_SOURCE
#define PROG "yardstick-timeout"
#include "common.h"

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>

#ifndef SYS_epoll_pwait2
#define SYS_epoll_pwait2 441
#endif

enum mechanism { M_EPOLL_WAIT, M_EPOLL_PWAIT2, M_PPOLL, M_PSELECT6, M_TIMERFD, NUM_MECHANISMS };
static const char *const mechanism_names[] = {"epoll_wait", "epoll_pwait2", "ppoll", "pselect6", "epoll+timerfd"};
enum { MAX_SAMPLES = 100000, MAX_LIST = 64, MAX_INTERRUPTED = 1000 };
static const int64_t MAX_TIMEOUT = 1000000000LL;
static const int64_t DEFAULT_TIMEOUTS[] = {50000, 100000, 500000, 1000000, 5000000};

struct config {
	int64_t timeouts[MAX_LIST];
	int ntimeouts;
	enum mechanism mechanisms[MAX_LIST];
	int nmechanisms, samples, csv;
	int64_t slack; /* 0: as inherited */
	const char *timeouts_arg;
};

/* ---- the sleepers ------------------------------------------------------------ */

/* What every mechanism watches: the idle pipe's read end, and for the
 * timerfd a timer armed for the request. */
static int idle_r, idle_w, ep_idle = -1, ep_timer = -1, tfd = -1;

static void open_sleepers(void)
{
	int p[2];
	if (pipe2(p, O_NONBLOCK | O_CLOEXEC) < 0)
		die("make idle pipe: %s", strerror(errno));
	idle_r = p[0], idle_w = p[1];
	struct epoll_event ev = {.events = EPOLLIN, .data.fd = idle_r};
	if ((ep_idle = epoll_create1(EPOLL_CLOEXEC)) < 0 || (ep_timer = epoll_create1(EPOLL_CLOEXEC)) < 0)
		die("epoll_create1: %s", strerror(errno));
	if (epoll_ctl(ep_idle, EPOLL_CTL_ADD, idle_r, &ev) < 0 || epoll_ctl(ep_timer, EPOLL_CTL_ADD, idle_r, &ev) < 0)
		die("epoll_ctl add fd %d: %s", idle_r, strerror(errno));
	if ((tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK)) < 0)
		die("timerfd_create: %s", strerror(errno));
	ev.data.fd = tfd;
	if (epoll_ctl(ep_timer, EPOLL_CTL_ADD, tfd, &ev) < 0)
		die("epoll_ctl add fd %d: %s", tfd, strerror(errno));
}

static struct timespec ts_of(int64_t ns) { return (struct timespec){ns / 1000000000LL, ns % 1000000000LL}; }

/* millis rounds a timeout up to whole milliseconds, never down. */
static int millis(int64_t ns) { return (int)((ns + 999999) / 1000000); }

/* timed_out turns a call's result into the sleeper's: 0 for a timeout,
 * EINTR for a signal, -1 with err set for anything else. */
static int timed_out(const char *what, long n, char *err, size_t size)
{
	if (n < 0 && errno == EINTR)
		return EINTR;
	if (n < 0)
		snprintf(err, size, "%s: %s", what, strerror(errno));
	else if (n != 0)
		snprintf(err, size, "%s reported %ld ready descriptors on a pipe nobody writes", what, n);
	return n == 0 ? 0 : -1;
}

/* sleep_once sleeps in mechanism m until its timeout d runs out. */
static int sleep_once(enum mechanism m, int64_t d, char *err, size_t size)
{
	struct epoll_event evs[2];
	struct timespec ts = ts_of(d);
	switch (m) {
	case M_EPOLL_WAIT:
		return timed_out("epoll_wait", syscall(SYS_epoll_pwait, ep_idle, evs, 1, millis(d), NULL, 0), err, size);
	case M_EPOLL_PWAIT2:
		return timed_out("epoll_pwait2", syscall(SYS_epoll_pwait2, ep_idle, evs, 1, &ts, NULL, 0), err, size);
	case M_PPOLL: {
		struct pollfd p = {.fd = idle_r, .events = POLLIN};
		return timed_out("ppoll", syscall(SYS_ppoll, &p, 1, &ts, NULL, 0), err, size);
	}
	case M_PSELECT6: {
		fd_set set;
		FD_ZERO(&set);
		FD_SET(idle_r, &set);
		return timed_out("pselect6", syscall(SYS_pselect6, idle_r + 1, &set, NULL, NULL, &ts, NULL), err, size);
	}
	case M_TIMERFD: {
		struct itimerspec spec = {.it_value = ts};
		uint64_t expiries;
		if (timerfd_settime(tfd, 0, &spec, NULL) < 0) {
			snprintf(err, size, "timerfd_settime: %s", strerror(errno));
			return -1;
		}
		/* a generous timeout of its own: a timer that never fires is an
		 * error, not a hang */
		long n = syscall(SYS_epoll_pwait, ep_timer, evs, 2, millis(d) + 1000, NULL, 0);
		if (n < 0 && errno == EINTR) {
			spec = (struct itimerspec){0}; /* disarm, clear any expiry */
			timerfd_settime(tfd, 0, &spec, NULL);
			if (read(tfd, &expiries, 8) < 0) {
				/* nothing had expired */
			}
			return EINTR;
		}
		if (n < 0) {
			snprintf(err, size, "epoll_wait on the timerfd: %s", strerror(errno));
			return -1;
		}
		if (n != 1 || evs[0].data.fd != tfd) {
			snprintf(err, size, "epoll_wait on the timerfd returned %ld events, want the timerfd alone", n);
			return -1;
		}
		if (read(tfd, &expiries, 8) != 8) {
			snprintf(err, size, "read the timerfd: %s", strerror(errno));
			return -1;
		}
		return 0;
	}
	case NUM_MECHANISMS:
		break;
	}
	return -1;
}

/* ---- points, samples, quantiles ---------------------------------------------- */

struct point {
	enum mechanism m;
	int64_t requested;
	int samples, interrupted;
	int64_t *overshoots;
	double min, p50, p99, max, mean;
};

/* sample adds one overshoot to p, retrying a sleep a signal cut short. It
 * returns 0, 1 when SIGINT or SIGTERM asked to stop, -1 with err. */
static int sample(struct point *p, char *err, size_t size)
{
	for (;;) {
		int64_t t0 = now_ns();
		int r = sleep_once(p->m, p->requested, err, size);
		int64_t took = now_ns() - t0;
		if (r == EINTR) {
			if (interrupted)
				return 1;
			if (++p->interrupted > MAX_INTERRUPTED) {
				snprintf(err, size, "more than %d sleeps interrupted by signals", MAX_INTERRUPTED);
				return -1;
			}
			continue;
		}
		if (r < 0)
			return -1;
		p->overshoots[p->samples++] = took - p->requested;
		return 0;
	}
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* quantile is gonum's stat.Quantile(f, stat.Empirical) on sorted xs, the
 * same floating-point comparison included. */
static double quantile(double f, const int64_t *xs, int n)
{
	double at = f * n;
	for (int i = 0; i < n; i++)
		if ((double)(i + 1) >= at)
			return (double)xs[i];
	return (double)xs[n - 1];
}

static void summarize(struct point *p)
{
	int n = p->samples;
	if (n == 0)
		return;
	qsort(p->overshoots, (size_t)n, sizeof *p->overshoots, cmp_i64);
	double sum = 0;
	for (int i = 0; i < n; i++)
		sum += (double)p->overshoots[i];
	p->min = (double)p->overshoots[0], p->max = (double)p->overshoots[n - 1];
	p->p50 = quantile(0.5, p->overshoots, n), p->p99 = quantile(0.99, p->overshoots, n);
	p->mean = sum / n;
}

/* ---- flags -------------------------------------------------------------------- */

/* split_list calls each on every comma-separated item of s (spaces around
 * an item are ignored); it returns the count, or -1 when an item is empty. */
static int split_list(const char *s, void (*each)(const char *item, int k, void *ctx), void *ctx)
{
	char buf[1024];
	snprintf(buf, sizeof buf, "%s", s);
	int k = 0;
	for (char *save, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		while (*tok == ' ')
			tok++;
		for (char *e = tok + strlen(tok); e > tok && e[-1] == ' ';)
			*--e = 0;
		if (k == MAX_LIST)
			usage_error("%s: want at most %d items", s, MAX_LIST);
		each(tok, k++, ctx);
	}
	return k;
}

static void each_timeout(const char *item, int k, void *ctx)
{
	struct config *c = ctx;
	int64_t d;
	if (duration_ns(item, &d) < 0 || d <= 0 || d > MAX_TIMEOUT)
		usage_error("-timeouts %s: want a comma-separated list of durations above 0 and at most 1s, such as 50us,1ms", c->timeouts_arg);
	c->timeouts[k] = d;
}

static void each_mechanism(const char *item, int k, void *ctx)
{
	struct config *c = ctx;
	c->mechanisms[k] = parse_choice("-mechanisms", item, mechanism_names, NUM_MECHANISMS,
					"epoll_wait, epoll_pwait2, ppoll, pselect6, epoll+timerfd");
}

static struct config parse_flags(int argc, char **argv)
{
	static const char *const formats[] = {"text", "csv"};
	struct config c = {.samples = 100, .ntimeouts = 5, .nmechanisms = NUM_MECHANISMS};
	memcpy(c.timeouts, DEFAULT_TIMEOUTS, sizeof DEFAULT_TIMEOUTS);
	for (int i = 0; i < NUM_MECHANISMS; i++)
		c.mechanisms[i] = (enum mechanism)i;
	char name[32];
	const char *val;
	for (int i = 1, r; (r = next_flag(argc, argv, &i, name, &val)) != 0;) {
		if (r < 0) {
			printf("usage: " PROG " [-timeouts LIST] [-mechanisms LIST] [-samples N] [-slack D] [-format text|csv]\n"
			       "mechanisms: epoll_wait, epoll_pwait2, ppoll, pselect6, epoll+timerfd\n");
			exit(0);
		}
		if (strcmp(name, "timeouts") == 0) {
			c.timeouts_arg = val;
			c.ntimeouts = split_list(val, each_timeout, &c);
			if (c.ntimeouts == 0)
				each_timeout("", 0, &c);
		} else if (strcmp(name, "mechanisms") == 0) {
			c.nmechanisms = split_list(val, each_mechanism, &c);
			if (c.nmechanisms == 0)
				each_mechanism("", 0, &c);
		} else if (strcmp(name, "samples") == 0) {
			c.samples = (int)parse_int("-samples", val, 1, MAX_SAMPLES);
		} else if (strcmp(name, "slack") == 0) {
			if (duration_ns(val, &c.slack) < 0 || c.slack < 0 || c.slack > MAX_TIMEOUT)
				usage_error("-slack %s: want a duration from 1ns to 1s such as 10s or 500ms (0 leaves the thread's timer slack as inherited)", val);
		} else if (strcmp(name, "format") == 0) {
			c.csv = parse_choice("-format", val, formats, 2, "text or csv");
		} else {
			usage_error("flag provided but not defined: -%s", name);
		}
	}
	return c;
}

/* ---- main ------------------------------------------------------------------------ */

static void write_text(const struct config *c, const struct point *pts, int npts, int64_t slack, double elapsed)
{
	char a[32];
	printf("--- yardstick timeout: overshoot = actual - requested (monotonic clock), %d samples per point, timer slack %s, %.3fs %s\n",
	       c->samples, nanos((double)slack, a, sizeof a), elapsed, interrupted ? "interrupted" : "measured");
	printf("%-14s %10s %10s %10s %10s %10s\n", "mechanism", "requested", "min", "p50", "p99", "max");
	int cut = 0;
	for (int i = 0; i < npts; i++) {
		const struct point *p = &pts[i];
		printf("%-14s", mechanism_names[p->m]);
		const double v[] = {(double)p->requested, p->min, p->p50, p->p99, p->max};
		for (int k = 0; k < 5; k++) {
			nanos(v[k], a, sizeof a);
			printf(" %*s", cell(a, 10), a);
		}
		printf("\n");
		cut += p->interrupted;
	}
	if (cut > 0)
		printf("sleeps cut short by a signal (EINTR), discarded and taken again: %d\n", cut);
	printf("blocking: one thread, plain C system calls (syscall(2)); the clock read with clock_gettime (vDSO)\n");
}

/* write_csv writes pipebench timeout -format csv's columns. */
static void write_csv(const struct point *pts, int npts, int64_t slack)
{
	printf("mechanism,requested_ns,samples,interrupted,min_ns,p50_ns,p99_ns,max_ns,mean_ns,timer_slack_ns\n");
	for (int i = 0; i < npts; i++) {
		const struct point *p = &pts[i];
		printf("%s,%" PRId64 ",%d,%d,%.0f,%.0f,%.0f,%.0f,%.0f,%" PRId64 "\n", mechanism_names[p->m], p->requested, p->samples,
		       p->interrupted, p->min, p->p50, p->p99, p->max, p->mean, slack);
	}
}

int main(int argc, char **argv)
{
	struct config c = parse_flags(argc, argv);
	if (c.slack > 0 && prctl(PR_SET_TIMERSLACK, (unsigned long)c.slack, 0, 0, 0) < 0)
		die("prctl PR_SET_TIMERSLACK %" PRId64 "ns: %s", c.slack, strerror(errno));
	int slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	if (slack < 0)
		die("prctl PR_GET_TIMERSLACK: %s", strerror(errno));
	open_sleepers();
	int npts = c.nmechanisms * c.ntimeouts;
	struct point *pts = calloc((size_t)npts, sizeof *pts);
	if (!pts)
		die("out of memory for %d points", npts);
	for (int i = 0; i < npts; i++) {
		pts[i] = (struct point){.m = c.mechanisms[i / c.ntimeouts], .requested = c.timeouts[i % c.ntimeouts],
					.overshoots = calloc((size_t)c.samples, sizeof(int64_t))};
		if (!pts[i].overshoots)
			die("out of memory for %d samples", c.samples);
	}
	catch_signals();
	if (!c.csv) {
		printf("timeout: %d mechanisms x %d timeouts, %d samples each\n", c.nmechanisms, c.ntimeouts, c.samples);
		fflush(stdout);
	}
	char err[256] = "";
	int rc = 0;
	struct point *bad = NULL;
	int64_t t0 = now_ns();
	for (int round = 0; round < c.samples && rc == 0 && !interrupted; round++)
		for (int k = 0; k < npts && rc == 0; k++) {
			bad = &pts[(round + k) % npts];
			rc = sample(bad, err, sizeof err);
		}
	double elapsed = (double)(now_ns() - t0) / 1e9;
	for (int i = 0; i < npts; i++)
		summarize(&pts[i]);
	if (c.csv)
		write_csv(pts, npts, slack);
	else
		write_text(&c, pts, npts, slack, elapsed);
	fflush(stdout);
	if (rc < 0) {
		char d[32];
		die("%s, %s timeout: %s", mechanism_names[bad->m], nanos((double)bad->requested, d, sizeof d), err);
	}
	return 0;
}
