/*
 * common.h: what the yardstick's C programs (yardstick.c, herd.c,
 * timeout.c) share, so that none carries a copy: failures and their one
 * line, the token route, the clock, Go-style flags and durations, the
 * descriptor limit, medians, the scheduler's view of a thread and the
 * CPUs' halts, and pipebench's credit-driven token writer.
 *
 * Each program defines PROG (its name, the prefix of its error lines)
 * before including it. Everything here is static: a function a program
 * does not call costs it nothing (-Wunused-function is silenced for the
 * header only).
 */
#ifndef YARDSTICK_COMMON_H
#define YARDSTICK_COMMON_H

#ifndef PROG
#error "define PROG, the program's name, before including common.h"
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"

/* ---- system calls as pipebench makes them ----------------------------------- */

/*
 * The hot loops make their system calls bare, as pipebench does (Go's
 * RawSyscall: the instruction, no C library between). glibc's read, write,
 * ppoll and epoll_pwait are cancellation points: in a process of more than
 * one thread each call switches asynchronous cancellation on before the
 * system call and off after it. A Go program never pays that; a C
 * program of one thread never does either.
 *
 * How the instruction is reached is -calls (calls):
 *   function (the default): sys6 calls sys6_function, a function of its
 *     own that makes the system call and returns to the loop. That is how
 *     every system call of a Go program is made (Go has no inline assembly:
 *     RawSyscall6 and x/sys's RawSyscallNoError are assembly functions), and
 *     how a C program makes one through its C library.
 *   inline: the syscall instruction in the loop's own code, which only C
 *     (or assembly) can do. What the return right after a system call
 *     costs is the machine's: paired.sh's FIRST=inline measures it
 *     (../README.md, "-calls").
 *   go (x86-64 only): the call as Go code makes it to an assembly function
 *     such as pipebench's waitcall.Raw6 (Go's ABI0, the only one a package
 *     outside Go's runtime may write assembly for): the caller stores the
 *     number and the six arguments on the stack, the stub loads them into
 *     registers, makes the call, stores the result on the stack and
 *     returns; the caller then zeroes X15 and reloads R14 from thread-local
 *     storage (Go's ABIInternal registers, which an ABI0 function may have
 *     changed) and loads the result. What that memory traffic around each
 *     system call costs is the machine's: paired.sh's FIRST=go measures it
 *     (../README.md, "-calls").
 *
 * sys6 returns the kernel's result, a negated errno on failure; the raw_
 * wrappers return -1 with errno set, as the C library's do.
 */
static inline long sys6_inline(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
{
#if defined(__x86_64__)
	long r;
	register long r10 __asm__("r10") = a4;
	register long r8 __asm__("r8") = a5;
	register long r9 __asm__("r9") = a6;
	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "0"(nr), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return r;
#else
	long r = syscall(nr, a1, a2, a3, a4, a5, a6); /* not a cancellation point */
	return r < 0 ? -errno : r;
#endif
}

/* sys6_function is sys6_inline in a function of its own, never inlined
 * nor cloned: one call and one return around each system call. */
__attribute__((noinline, noclone)) static long sys6_function(long nr, long a1, long a2, long a3, long a4, long a5,
							     long a6)
{
	return sys6_inline(nr, a1, a2, a3, a4, a5, a6);
}

#if defined(__x86_64__)
/* sys6_go_stub is waitcall.Raw6 as Go's assembler builds it (ABI0): the
 * number at 8(%rsp) and the arguments above it, the result stored at
 * 64(%rsp), the caller's frame. */
__asm__(".text\n"
	".p2align 4\n"
	".type sys6_go_stub, @function\n"
	"sys6_go_stub:\n"
	"\tmovq 16(%rsp), %rdi\n"
	"\tmovq 24(%rsp), %rsi\n"
	"\tmovq 32(%rsp), %rdx\n"
	"\tmovq 40(%rsp), %r10\n"
	"\tmovq 48(%rsp), %r8\n"
	"\tmovq 56(%rsp), %r9\n"
	"\tmovq 8(%rsp), %rax\n"
	"\tsyscall\n"
	"\tmovq %rax, 64(%rsp)\n"
	"\tret\n"
	".size sys6_go_stub, .-sys6_go_stub\n");

/* go_g stands for the word Go keeps its current goroutine in, at a fixed
 * offset from the thread pointer. */
static __thread void *go_g __attribute__((used));

/* sys6_go is the caller's side: the arguments stored where the stub reads
 * them (below the red zone a C function may keep data in), the call, then
 * what Go's compiler emits after a call into ABI0 code, and the result
 * loaded from the frame. */
static inline long sys6_go(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
{
	const long args[7] = {nr, a1, a2, a3, a4, a5, a6};
	long r;
	__asm__ volatile("subq $200, %%rsp\n\t"
			 "movq 0(%1), %%rax\n\tmovq %%rax, 0(%%rsp)\n\t"
			 "movq 8(%1), %%rax\n\tmovq %%rax, 8(%%rsp)\n\t"
			 "movq 16(%1), %%rax\n\tmovq %%rax, 16(%%rsp)\n\t"
			 "movq 24(%1), %%rax\n\tmovq %%rax, 24(%%rsp)\n\t"
			 "movq 32(%1), %%rax\n\tmovq %%rax, 32(%%rsp)\n\t"
			 "movq 40(%1), %%rax\n\tmovq %%rax, 40(%%rsp)\n\t"
			 "movq 48(%1), %%rax\n\tmovq %%rax, 48(%%rsp)\n\t"
			 "call sys6_go_stub\n\t"
			 "xorps %%xmm15, %%xmm15\n\t"
			 "movq %%fs:go_g@tpoff, %%r14\n\t"
			 "movq 56(%%rsp), %0\n\t"
			 "addq $200, %%rsp"
			 : "=r"(r)
			 : "r"(args)
			 : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "r14", "xmm15", "memory", "cc");
	return r;
}
#define CALLS_GO 1
#else
static inline long sys6_go(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
{
	return sys6_function(nr, a1, a2, a3, a4, a5, a6);
}
#define CALLS_GO 0
#endif

/* calls is -calls: CALLS_FUNCTION, CALLS_INLINE or CALLS_GOABI, the index
 * of its name in calls_names. */
enum { CALLS_FUNCTION, CALLS_INLINE, CALLS_GOABI };
static int calls;
static const char *const calls_names[] = {"function", "inline", "go"};

/* print_calls prints how the hot loops made their system calls. */
static void print_calls(void)
{
	static const char *const what[] = {
		"each system call made by a function that returns to the loop (-calls function)",
		"each system call in the loop's own code (-calls inline)",
		"each system call made as Go calls an assembly function: arguments and result on the stack, X15 and R14 restored after (-calls go)",
	};
	printf("calls          %s\n", what[calls]);
}

static inline long sys6(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
{
	if (calls == CALLS_INLINE)
		return sys6_inline(nr, a1, a2, a3, a4, a5, a6);
	if (calls == CALLS_GOABI)
		return sys6_go(nr, a1, a2, a3, a4, a5, a6);
	return sys6_function(nr, a1, a2, a3, a4, a5, a6);
}

static inline long sys_result(long r)
{
	if ((unsigned long)r > -4096UL) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

static inline ssize_t raw_read(int fd, void *buf, size_t n)
{
	return sys_result(sys6(SYS_read, fd, (long)buf, (long)n, 0, 0, 0));
}

static inline ssize_t raw_write(int fd, const void *buf, size_t n)
{
	return sys_result(sys6(SYS_write, fd, (long)buf, (long)n, 0, 0, 0));
}

/* raw_ppoll is ppoll with no signal mask. */
static inline int raw_ppoll(struct pollfd *fds, nfds_t n, struct timespec *ts)
{
	return (int)sys_result(sys6(SYS_ppoll, (long)fds, (long)n, (long)ts, 0, 8, 0));
}

/* ---- failures ------------------------------------------------------------ */

/* vcomplain prints one line, PROG: and the message, on stderr. */
static void vcomplain(const char *fmt, va_list ap)
{
	fflush(stdout);
	fputs(PROG ": ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/* usage_error prints one line and exits 2: bad input, before any work. */
static void usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vcomplain(fmt, ap);
	va_end(ap);
	exit(2);
}

/* die prints one line and exits 1: a failure at run time. */
static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vcomplain(fmt, ap);
	va_end(ap);
	exit(1);
}

/* The first failure of a measured thread; the run then ends (stop). */
static pthread_mutex_t fail_mu = PTHREAD_MUTEX_INITIALIZER;
static char fail_msg[512];
static atomic_int failed;
static atomic_int stop;
static volatile sig_atomic_t interrupted; /* SIGINT or SIGTERM (on_signal) */

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

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* catch_signals sends SIGINT and SIGTERM to on_signal. Threads started
 * while they are blocked (block_signals) never see them: a signal then
 * ends only the main thread's sleep. */
static void catch_signals(void)
{
	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static void block_signals(sigset_t *old)
{
	sigset_t sigs;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, old);
}

/* ---- the route ----------------------------------------------------------- */

/* pipebench's route (internal/tokens/route.go): xorshift64* seeded through
 * splitmix64, reduced to [0, n) by multiply-shift; or i+1 (next). */
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

/* ---- time ------------------------------------------------------------------ */

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* sleep_until sleeps to the monotonic time due; it returns nonzero when a
 * signal ended the sleep first. */
static int sleep_until(int64_t due)
{
	struct timespec ts = {due / 1000000000LL, due % 1000000000LL};
	return clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0;
}

/* nanos formats a duration in nanoseconds as pipebench's report.Nanos does:
 * three significant digits and a unit (953µs, 1.02ms). */
static const char *nanos(double x, char *buf, size_t size)
{
	double a = x < 0 ? -x : x;
	if (a < 1e3)
		snprintf(buf, size, "%.0fns", x);
	else if (a < 1e6)
		snprintf(buf, size, "%.3gµs", x / 1e3);
	else if (a < 1e9)
		snprintf(buf, size, "%.3gms", x / 1e6);
	else if (a < 1e12)
		snprintf(buf, size, "%.3gs", x / 1e9);
	else
		snprintf(buf, size, "%.0fs", x / 1e9);
	return buf;
}

/* cell returns the printf width that right-aligns s in width columns, as
 * Go's fmt does: it counts characters, not bytes (µ is two). */
static int cell(const char *s, int width)
{
	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) == 0x80)
			width++;
	return width;
}

/* ---- flags, as Go's flag package takes them ------------------------------- */

/* next_flag reads the flag at argv[*i]: -name value, -name=value, --name.
 * It returns 0 past the last argument, 1 with *name and *val set, and -1
 * for -h or -help (no value). Anything that is not a flag is refused. */
static int next_flag(int argc, char **argv, int *i, char name[32], const char **val)
{
	if (*i >= argc)
		return 0;
	const char *a = argv[(*i)++];
	if (a[0] != '-' || a[1] == 0)
		usage_error("unexpected argument \"%s\": " PROG " takes flags only", a);
	a += (a[1] == '-') ? 2 : 1;
	const char *eq = strchr(a, '=');
	size_t len = eq ? (size_t)(eq - a) : strlen(a);
	if (len >= 32)
		len = 31;
	memcpy(name, a, len);
	name[len] = 0;
	if (strcmp(name, "h") == 0 || strcmp(name, "help") == 0)
		return -1;
	if (eq)
		*val = eq + 1;
	else if (*i < argc)
		*val = argv[(*i)++];
	else
		usage_error("-%s: flag needs an argument", name);
	return 1;
}

static long long parse_int(const char *flag, const char *s, long long lo, long long hi)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		usage_error("%s %s: want an integer from %lld to %lld", flag, s, lo, hi);
	return v;
}

/* duration_ns reads Go's forms of a duration: "0" or one or more
 * number+unit ("1m30s", "1.5s", "300ms", "50us" or "50µs"), up to a day.
 * It returns 0, or -1 for anything else. */
static int duration_ns(const char *s, int64_t *out)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = {{"ns", 1}, {"us", 1e3}, {"µs", 1e3}, {"μs", 1e3}, {"ms", 1e6},
		     {"s", 1e9}, {"m", 60e9}, {"h", 3600e9}};
	const size_t nunits = sizeof units / sizeof units[0];
	if (strcmp(s, "0") == 0) {
		*out = 0;
		return 0;
	}
	double total = 0;
	const char *p = s;
	if (!*p)
		return -1;
	while (*p) {
		char *end;
		if (!(*p >= '0' && *p <= '9') && *p != '.')
			return -1;
		double v = strtod(p, &end);
		if (end == p)
			return -1;
		p = end;
		size_t len = 0;
		while (p[len] && !(p[len] >= '0' && p[len] <= '9') && p[len] != '.')
			len++;
		size_t u;
		for (u = 0; u < nunits; u++)
			if (strlen(units[u].unit) == len && strncmp(p, units[u].unit, len) == 0)
				break;
		if (u == nunits)
			return -1;
		total += v * units[u].ns;
		p += len;
	}
	if (total > 24 * 3600e9)
		return -1;
	*out = (int64_t)(total + 0.5);
	return 0;
}

static int64_t parse_duration(const char *flag, const char *s)
{
	int64_t d;
	if (duration_ns(s, &d) < 0)
		usage_error("%s %s: want a duration such as 3s or 500ms", flag, s);
	return d;
}

static int parse_choice(const char *flag, const char *s, const char *const *names, int n, const char *want)
{
	for (int i = 0; i < n; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	usage_error("%s %s: want %s", flag, s, want);
	return 0;
}

/* ---- descriptors ----------------------------------------------------------- */

/* raise_nofile raises the soft RLIMIT_NOFILE to the hard limit, as
 * pipebench does, and returns it. */
static unsigned long long raise_nofile(void)
{
	struct rlimit lim;
	if (getrlimit(RLIMIT_NOFILE, &lim) < 0)
		die("getrlimit RLIMIT_NOFILE: %s", strerror(errno));
	if (lim.rlim_cur < lim.rlim_max) {
		lim.rlim_cur = lim.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &lim) < 0)
			die("raise RLIMIT_NOFILE to %llu: %s", (unsigned long long)lim.rlim_max, strerror(errno));
	}
	return (unsigned long long)lim.rlim_cur;
}

/* open_fds counts the descriptors open now, as pipebench's OpenFDs. */
static unsigned long long open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		die("count open descriptors: /proc/self/fd: %s", strerror(errno));
	unsigned long long n = 0;
	for (struct dirent *e; (e = readdir(d)) != NULL;)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1; /* the directory's own descriptor */
}

/* ---- statistics ------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* median sorts xs and returns its median, 0 for none. */
static double median(double *xs, int n)
{
	if (n <= 0)
		return 0;
	qsort(xs, (size_t)n, sizeof *xs, cmp_double);
	return n % 2 ? xs[n / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2;
}

/* per is x / of, 0 when of is 0, as pipebench's stats.PerEvent. */
static double per(uint64_t x, uint64_t of) { return of ? (double)x / (double)of : 0; }

/* ---- the scheduler's view of a thread ------------------------------------ */

/* sched_use is what /proc/thread-self/sched and schedstat show of the
 * calling thread, as pipebench's cost table reads them: voluntary and
 * involuntary context switches, migrations to another CPU, and the time
 * spent runnable waiting for a CPU; and its CPU time, user and system, as
 * getrusage(RUSAGE_THREAD) gives it (pipebench's cpu/evt, user/evt and
 * sys/evt come from the same call). ok is 0 where the kernel shows none,
 * or the files could not be opened (err: at an exact descriptor budget,
 * EMFILE). */
struct sched_use {
	long long vol, invol, mig, delay_ns, user_ns, sys_ns;
	int ok, err;
};

static struct sched_use sched_now(void)
{
	struct sched_use u = {0};
	char line[256];
	int found = 0;
	FILE *f = fopen("/proc/thread-self/sched", "r");
	if (!f) {
		u.err = errno;
		return u;
	}
	while (fgets(line, sizeof line, f)) {
		char key[64];
		long long v;
		if (sscanf(line, "%63s : %lld", key, &v) != 2)
			continue;
		if (strcmp(key, "nr_voluntary_switches") == 0)
			u.vol = v, found |= 1;
		else if (strcmp(key, "nr_involuntary_switches") == 0)
			u.invol = v, found |= 2;
		else if (strcmp(key, "se.nr_migrations") == 0)
			u.mig = v, found |= 4;
	}
	fclose(f);
	long long run;
	f = fopen("/proc/thread-self/schedstat", "r");
	if (!f)
		u.err = errno;
	if (f && fscanf(f, "%lld %lld", &run, &u.delay_ns) == 2)
		found |= 8;
	if (f)
		fclose(f);
	struct rusage r;
	if (getrusage(RUSAGE_THREAD, &r) == 0) {
		u.user_ns = (long long)r.ru_utime.tv_sec * 1000000000LL + (long long)r.ru_utime.tv_usec * 1000LL;
		u.sys_ns = (long long)r.ru_stime.tv_sec * 1000000000LL + (long long)r.ru_stime.tv_usec * 1000LL;
		found |= 16;
	}
	u.ok = found == 31;
	return u;
}

static struct sched_use sched_since(struct sched_use start)
{
	struct sched_use u = sched_now();
	return (struct sched_use){u.vol - start.vol, u.invol - start.invol, u.mig - start.mig,
				  u.delay_ns - start.delay_ns, u.user_ns - start.user_ns, u.sys_ns - start.sys_ns,
				  u.ok && start.ok, start.err ? start.err : u.err};
}

/* print_sched prints who's line of the scheduler's figures per event. */
static void print_sched(const char *who, struct sched_use u, uint64_t events)
{
	char b[32];
	if (!u.ok && u.err) {
		printf("sched          %-14s not read: /proc/thread-self: %s\n", who, strerror(u.err));
		return;
	}
	if (!u.ok) {
		printf("sched          %-14s not shown by this kernel\n", who);
		return;
	}
	char cb[32], ub[32], sb[32];
	const uint64_t user = (uint64_t)(u.user_ns > 0 ? u.user_ns : 0), sys = (uint64_t)(u.sys_ns > 0 ? u.sys_ns : 0);
	printf("sched          %-14s cpu/evt %s  user/evt %s  sys/evt %s  vol cs/evt %.4g  invol cs/evt %.4g  migr/evt %.4g  runq/evt %s\n",
	       who, nanos(per(user + sys, events), cb, sizeof cb), nanos(per(user, events), ub, sizeof ub),
	       nanos(per(sys, events), sb, sizeof sb), per((uint64_t)u.vol, events), per((uint64_t)u.invol, events),
	       per((uint64_t)u.mig, events), nanos(per((uint64_t)(u.delay_ns > 0 ? u.delay_ns : 0), events), b, sizeof b));
}

/* ---- the CPUs' halts ------------------------------------------------------ */

/* halts_use is how often the CPUs this process may run on (its affinity
 * mask, as taskset set it) entered an idle state, as pipebench counts them
 * (internal/osthread's Halts): cpuidle's usage of every state but POLL,
 * summed over the CPUs. POLL is left out: a CPU in it spins in its idle
 * loop, it does not halt. ok is 0 where they could not be counted, and why
 * says why: no cpuidle (another idle driver or none, a container), POLL
 * alone, or a file that could not be read (EMFILE at an exact descriptor
 * budget). cpus lists the CPUs counted as the kernel's cpulist does. */
struct halts_use {
	unsigned long long entries;
	int ok;
	char cpus[128];
	char why[200];
};

/* read_small reads a small sysfs file into buf, NUL-terminated: the number
 * of bytes, or -1 with errno set. */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, size - 1);
	int e = errno;
	close(fd);
	errno = e;
	if (n >= 0)
		buf[n] = 0;
	return n;
}

static struct halts_use halts_now(void)
{
	struct halts_use h = {0};
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) < 0) {
		snprintf(h.why, sizeof h.why, "read CPU affinity: %s", strerror(errno));
		return h;
	}
	size_t at = 0;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &set))
			continue;
		int last = cpu;
		while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set))
			last++;
		if (at < sizeof h.cpus && last > cpu)
			at += (size_t)snprintf(h.cpus + at, sizeof h.cpus - at, "%s%d-%d", at ? "," : "", cpu, last);
		else if (at < sizeof h.cpus)
			at += (size_t)snprintf(h.cpus + at, sizeof h.cpus - at, "%s%d", at ? "," : "", cpu);
		cpu = last;
	}
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &set))
			continue;
		int states = 0, counted = 0;
		for (int k = 0;; k++) {
			char path[128], buf[64];
			snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/name", cpu, k);
			if (read_small(path, buf, sizeof buf) < 0) {
				if (errno == ENOENT)
					break;
				snprintf(h.why, sizeof h.why, "open %s: %s", path, strerror(errno));
				return h;
			}
			states++;
			if (strcmp(buf, "POLL\n") == 0 || strcmp(buf, "POLL") == 0)
				continue;
			snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/usage", cpu, k);
			if (read_small(path, buf, sizeof buf) < 0) {
				snprintf(h.why, sizeof h.why, "open %s: %s", path, strerror(errno));
				return h;
			}
			h.entries += strtoull(buf, NULL, 10);
			counted++;
		}
		if (states == 0) {
			snprintf(h.why, sizeof h.why, "no cpuidle states for CPU %d (/sys/devices/system/cpu/cpu%d/cpuidle)", cpu, cpu);
			return h;
		}
		if (counted == 0) {
			snprintf(h.why, sizeof h.why, "CPU %d has no idle state but POLL (/sys/devices/system/cpu/cpu%d/cpuidle)", cpu, cpu);
			return h;
		}
	}
	h.ok = 1;
	return h;
}

static struct halts_use halts_since(struct halts_use start)
{
	if (!start.ok)
		return start;
	struct halts_use h = halts_now();
	if (h.ok && h.entries < start.entries) {
		h.ok = 0;
		snprintf(h.why, sizeof h.why, "the idle-state count went back (%llu at the start, %llu at the end)", start.entries, h.entries);
	}
	if (h.ok)
		h.entries -= start.entries;
	return h;
}

/* print_halts prints the CPUs' sched line: their halts per event, as
 * pipebench's halts/evt line, or "-" and why they were not counted. */
static void print_halts(struct halts_use h, uint64_t events)
{
	char who[160];
	snprintf(who, sizeof who, "CPUs %s", h.cpus);
	if (!h.ok) {
		printf("sched          %-14s halts/evt -  (%s)\n", who, h.why);
		return;
	}
	if (events == 0) {
		printf("sched          %-14s halts/evt -  (no event to count them against)\n", who);
		return;
	}
	printf("sched          %-14s halts/evt %.4g\n", who, per(h.entries, events));
}

/* ---- the credit-driven writer ----------------------------------------------- */

enum { CREDIT_PIPE_SIZE = 1 << 16 };
static const uint64_t STOP_CREDIT = ~(uint64_t)0;
static const char token = 't';

struct writer_state {
	const int *wfds;
	struct router route;
	int in_flight; /* 0: unbounded (yardstick.c's writer_unbounded) */
	int credit_r;
	int poll_first; /* sleep in ppoll, then read (credit_r non-blocking) */
	uint64_t sent, full;
	char err[256];
};

/* writer_run is pipebench's writer.run: one token per credit, then a wait
 * for credits on the credit pipe (a blocking read, or ppoll then a read),
 * until the stop word. It returns 0 at the stop word, -1 with w->err set
 * on a failure. */
static int writer_run(struct writer_state *w)
{
	const int *fds = w->wfds;
	uint64_t have = (uint64_t)w->in_flight, sent = 0;
	uint64_t buf[512];
	int rc = -1;
	for (;;) {
		for (; have > 0; have--) {
			uint32_t j = pick(&w->route);
			if (raw_write(fds[j], &token, 1) != 1) {
				snprintf(w->err, sizeof w->err, "writer: write token to pipe %u (fd %d): %s", j, fds[j], strerror(errno));
				goto out;
			}
			sent++;
		}
		ssize_t n;
		for (;;) {
			if (w->poll_first) {
				struct pollfd pfd = {.fd = w->credit_r, .events = POLLIN};
				if (raw_ppoll(&pfd, 1, NULL) < 0 && errno != EINTR) {
					n = -1;
					break;
				}
			}
			n = raw_read(w->credit_r, buf, sizeof buf);
			if (n >= 0 || (errno != EINTR && !(w->poll_first && errno == EAGAIN)))
				break;
		}
		if (n < 0) {
			snprintf(w->err, sizeof w->err, "writer: read credits: %s", strerror(errno));
			goto out;
		}
		if (n == 0 || n % 8 != 0) {
			snprintf(w->err, sizeof w->err, "writer: %s on the credit pipe", n == 0 ? "end of file" : "torn credit word");
			goto out;
		}
		for (ssize_t i = 0; i < n / 8; i++) {
			if (buf[i] == STOP_CREDIT) {
				rc = 0;
				goto out;
			}
			have += buf[i];
		}
	}
out:
	w->sent = sent;
	return rc;
}

#pragma GCC diagnostic pop

#endif
