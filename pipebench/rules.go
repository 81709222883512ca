package pipebench

import (
	"slices"
	"strconv"
	"time"

	"github.com/pipebench/pipebench/internal/osthread"
	"github.com/pipebench/pipebench/internal/tokens"
)

// The rule book of a run: every rule a Config must meet before any work,
// in the order Prepare applies them, each refusal a *ConfigError written
// by the caller's Names, the backend's own rules (Factory.Check) among
// them. Prepare, the one entry point, applies them once, then the
// descriptor plan's (limits.go: a *LimitError).

// check reports the first rule c breaks, written by n; c has its
// defaults filled in (withDefaults).
func (c *Config) check(n Names) error {
	if err := c.checkFields(n); err != nil {
		return err
	}
	if err := c.Backend.Validate(); err != nil {
		return n.Errorf("%s: %v", Field("Backend"), err)
	}
	rules := []func(Names) error{c.checkThreads, c.checkShare, c.checkRate, c.checkCPUList, c.checkDriver, c.checkMinWait}
	for _, rule := range rules {
		if err := rule(n); err != nil {
			return err
		}
	}
	if c.Backend.Check != nil {
		// Before the writer rules below: a backend that refuses a setting
		// says why, rather than being advised a writer it cannot run with.
		if err := c.Backend.Check(c, n); err != nil {
			return err
		}
	}
	if err := c.checkWriter(n); err != nil {
		return err
	}
	return checkCPUs(c.CPUs, n)
}

// checkFields refuses a setting out of range on its own, or against one
// other setting of the workload or the window.
func (c *Config) checkFields(n Names) error {
	switch {
	case c.Pipes < 1:
		return n.Errorf("%s: want at least 1 pipe", Set("Pipes", c.Pipes))
	case c.InFlight < 0 || c.InFlight > MaxInFlight:
		return n.Errorf("%s: want 0 (unbounded) to %d tokens in flight", Set("InFlight", c.InFlight), MaxInFlight)
	case c.Interval <= 0:
		return n.Errorf("%s: want a positive interval", Set("Interval", c.Interval))
	case c.Duration < 0:
		return n.Errorf("%s: want a duration >= 0 (0 runs until interrupted)", Set("Duration", c.Duration))
	case c.Duration > 0 && c.Interval > c.Duration:
		return n.Errorf("%s is longer than %s: want an interval no longer than the duration", Set("Interval", c.Interval), Set("Duration", c.Duration))
	case c.Duration > 0 && c.Duration%c.Interval != 0:
		return n.Errorf("%s is not a whole number of %s intervals: want %s a multiple of %s",
			Set("Duration", c.Duration), Set("Interval", c.Interval), Field("Duration"), Field("Interval"))
	case c.Warmup < 0:
		return n.Errorf("%s: want 0 or more leading intervals left out of the summary", Set("Warmup", c.Warmup))
	case c.Backend == nil:
		return n.Errorf("%s: no backend given", Field("Backend"))
	case c.Churn < 0 || c.Churn > c.Pipes:
		return n.Errorf("%s: want 0 to %s (%d) descriptors changed per readiness call", Set("Churn", c.Churn), Field("Pipes"), c.Pipes)
	case c.Delay < 0:
		return n.Errorf("%s: want a duration >= 0", Set("Delay", c.Delay))
	case c.MinWait < 0 || c.MinWait > 0 && c.MinWait < time.Microsecond:
		return n.Errorf("%s: want 0 (none) or at least 1µs (the kernel counts it in microseconds)", Set("MinWait", c.MinWait))
	case c.Source == SourceUnix && c.InFlight > MaxUnixInFlight:
		return n.Errorf("%s with %s: a unix stream socket holds only about 278 one-byte writes (each takes a buffer of its own), and every token may land in one: use %s or less, or %s",
			Set("Source", c.Source), Set("InFlight", c.InFlight), Set("InFlight", MaxUnixInFlight), Set("InFlight", 0))
	case c.Source == SourceEventfd && c.Latency:
		return n.Errorf("%s with %s: an eventfd adds tokens up, so it cannot carry their write times", Set("Source", c.Source), Field("Latency"))
	case c.Readers < 0 || c.Readers > MaxThreads:
		return n.Errorf("%s: want 1 to %d reader threads", Set("Readers", c.Readers), MaxThreads)
	case c.Writers < 0 || c.Writers > MaxThreads:
		return n.Errorf("%s: want 1 to %d writer threads", Set("Writers", c.Writers), MaxThreads)
	case c.MaxEvents < 0:
		return n.Errorf("%s: want at least 1 ready descriptor per readiness call (0: every pipe of the reader)", Set("MaxEvents", c.MaxEvents))
	case c.Nest < 0 || c.Nest > MaxNest:
		return n.Errorf("%s: want 0 to %d levels of nested epoll sets (the kernel refuses deeper nesting with ELOOP)", Set("Nest", c.Nest), MaxNest)
	case c.Spread && len(c.CPUs) > 0:
		return n.Errorf("%s: spread or a list of CPUs, not both", Field("CPUs"))
	}
	return c.checkWarmup(n)
}

// checkWarmup refuses a warm-up that would leave a run of a duration no
// interval to summarise.
func (c *Config) checkWarmup(n Names) error {
	if c.Duration == 0 || c.Warmup == 0 {
		return nil
	}
	full := int(c.Duration / c.Interval)
	if c.Warmup < full {
		return nil
	}
	head := "%s would leave none of the %d intervals of %s %s to summarise: use "
	args := []any{Set("Warmup", c.Warmup), full, Set("Duration", c.Duration), Set("Interval", c.Interval)}
	if full == 1 {
		return n.Errorf(head+"%s, or a longer %s", append(args, Set("Warmup", 0), Field("Duration"))...)
	}
	return n.Errorf(head+"%s or less, or a longer %s", append(args, Set("Warmup", full-1), Field("Duration"))...)
}

// checkThreads refuses several readers or writers where the harness
// cannot run them.
func (c *Config) checkThreads(n Names) error {
	if !c.several() {
		return nil
	}
	mode := c.writerMode()
	rd, wr := Set("Readers", c.readers()), Set("Writers", c.writers())
	switch {
	case c.Backend.IsLoop():
		return n.Errorf("%s and %s with %s: it makes no readiness call for several reader threads to share out", rd, wr, Set("Backend", c.Backend.Name))
	case mode != WriterThread && mode != WriterAuto:
		return n.Errorf("%s and %s need %s thread (or auto), not %s: several readers or writers are threads of one process", rd, wr, Field("Writer"), mode)
	case c.Pipes < c.readers() || c.Pipes < c.writers():
		return n.Errorf("%s with %s and %s: want at least one pipe per reader and per writer", Set("Pipes", c.Pipes), rd, wr)
	case c.InFlight > 0 && c.InFlight < c.writers():
		return n.Errorf("%s with %s: want at least one token per writer (or %s, unbounded)", Set("InFlight", c.InFlight), wr, Set("InFlight", 0))
	}
	return nil
}

// checkShare refuses Share where it means nothing or cannot run.
func (c *Config) checkShare(n Names) error {
	if !c.Share {
		return nil
	}
	share := Field("Share")
	switch {
	case !c.Backend.Features.Has(Shares):
		return n.Errorf("%s with %s: only epoll lets several threads wait on one instance (epoll, epoll-et, epoll-oneshot)", share, Set("Backend", c.Backend.Name))
	case c.readers() < 2:
		return n.Errorf("%s with %s: want 2 or more readers to share one backend instance", share, Set("Readers", c.readers()))
	case c.Churn > 0:
		return n.Errorf("%s with %s: readers sharing one instance would remove and re-add each other's descriptors", share, Set("Churn", c.Churn))
	}
	return nil
}

// checkRate refuses a Rate that cannot pace: out of range, with tokens
// in flight, or with a writer that cannot keep a schedule.
func (c *Config) checkRate(n Names) error {
	if c.Rate == 0 {
		return nil
	}
	rate := Set("Rate", strconv.FormatFloat(c.Rate, 'f', -1, 64))
	switch mode := c.writerMode(); {
	case !(c.Rate > 0 && c.Rate <= MaxRate): // NaN too
		return n.Errorf("%s: want a rate above 0 up to %g tokens per second (0: the closed loop of %s)", rate, MaxRate, Field("InFlight"))
	case c.InFlight > 0:
		return n.Errorf("%s with %s: an open-loop writer sends on its schedule, with no tokens in flight to bound it: give one or the other", rate, Set("InFlight", c.InFlight))
	case mode == WriterSelf:
		return n.Errorf("%s with %s: a reader that writes its tokens on cannot pace them: use %s thread, process or auto", rate, Set("Writer", mode), Field("Writer"))
	case c.Backend.Features.Has(FollowsRoute):
		return n.Errorf("%s with %s: the bypass follows the tokens of a closed loop (use %s), not an open-loop writer's", rate, Set("Backend", c.Backend.Name), Field("InFlight"))
	}
	return nil
}

// checkCPUList refuses a -cpu list that names neither one CPU nor one per
// measured thread.
func (c *Config) checkCPUList(n Names) error {
	if len(c.CPUs) > 1 && len(c.CPUs) != c.measuredThreads() {
		return n.Errorf("%s: want one CPU (every thread on it) or %d, one per measured thread: %s", Set("CPUs", c.CPUs), c.measuredThreads(), c.threadList())
	}
	return nil
}

// checkMinWait refuses a minimum wait where the backend's wait has none,
// or one longer than the readiness call's timeout, which it would outlast.
func (c *Config) checkMinWait(n Names) error {
	switch {
	case c.MinWait == 0:
		return nil
	case !c.Backend.Features.Has(MinWaits) && c.Backend.IsLoop():
		return n.Errorf("%s with %s: only io_uring's wait has a minimum wait (uring, uring-oneshot, uring-epoll), and this backend makes no readiness call",
			Field("MinWait"), Set("Backend", c.Backend.Name))
	case !c.Backend.Features.Has(MinWaits):
		return n.Errorf("%s with %s: only io_uring's wait has a minimum wait (uring, uring-oneshot, uring-epoll); %s sleeps before each readiness call instead",
			Field("MinWait"), Set("Backend", c.Backend.Name), Field("Delay"))
	}
	if limit := c.WaitTimeout; limit > 0 && c.MinWait > limit {
		return n.Errorf("%s: want at most the readiness call's timeout, %v", Set("MinWait", c.MinWait), limit)
	}
	return nil
}

// checkWriter refuses a writer that cannot forward the tokens of c: none
// for an unbounded writer, and a writer thread that could wait for good
// without the runtime's asynchronous preemption.
func (c *Config) checkWriter(n Names) error {
	mode := c.writerMode()
	switch {
	case c.InFlight == 0 && mode == WriterSelf:
		return n.Errorf("%s (unbounded) needs a separate writer: use %s thread, process or auto", Set("InFlight", 0), Field("Writer"))
	case c.InFlight > 0 && (mode == WriterThread || mode == WriterAuto) && tokens.AsyncPreemptOff():
		return n.Errorf("%s with GODEBUG=asyncpreemptoff=1: a writer thread's sleep for credits ends only on a credit or the runtime's preemption signal, so a garbage collection that stopped the reader first would wait for good: use %s self or process, or run without asyncpreemptoff",
			Set("Writer", mode), Field("Writer"))
	}
	return nil
}

// checkCPUs reports, in one line, every CPU this process may not run on.
func checkCPUs(cpus []int, n Names) error {
	if len(cpus) == 0 {
		return nil
	}
	ok, err := osthread.AllowedCPUs()
	if err != nil {
		return n.Errorf("%s: %v", Field("CPUs"), err)
	}
	var bad []int
	for _, c := range cpus {
		if !slices.Contains(ok, c) && !slices.Contains(bad, c) {
			bad = append(bad, c)
		}
	}
	switch len(bad) {
	case 0:
		return nil
	case 1:
		return n.Errorf("%s: this process may run on CPUs %v", Set("CPUs", bad[0]), ok)
	}
	return n.Errorf("%s: this process may not run on these; it may run on CPUs %v", Set("CPUs", bad), ok)
}
