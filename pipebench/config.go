package pipebench

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/pipebench/pipebench/internal/osthread"
	"github.com/pipebench/pipebench/internal/tokens"
)

// WriterMode says who forwards a token after the reader has read it.
type WriterMode int

const (
	// WriterAuto is WriterThread unless the descriptor limit forbids it, then
	// WriterProcess.
	WriterAuto WriterMode = iota
	// WriterSelf: the reader writes each token on to the next pipe itself,
	// on one thread (pipetest, libevent's bench).
	WriterSelf
	// WriterThread: a writer OS thread sends tokens; the reader returns
	// credits in one write per readiness call (epoll_pipe_bench).
	WriterThread
	// WriterProcess: as WriterThread, with the writer in a child process that
	// holds only the write ends.
	WriterProcess
)

var writerNames = [...]string{"auto", "self", "thread", "process"}

func (m WriterMode) String() string {
	if m < 0 || int(m) >= len(writerNames) {
		return fmt.Sprintf("WriterMode(%d)", int(m))
	}
	return writerNames[m]
}

// MarshalText makes a mode read as its name in JSON.
func (m WriterMode) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText reads a mode from its name.
func (m *WriterMode) UnmarshalText(b []byte) error {
	v, err := ParseWriterMode(string(b))
	*m = v
	return err
}

// ParseWriterMode maps a -writer value to its mode.
func ParseWriterMode(s string) (WriterMode, error) {
	for i, n := range writerNames {
		if s == n {
			return WriterMode(i), nil
		}
	}
	return 0, fmt.Errorf("unknown writer %q: want self, thread, process or auto", s)
}

// Route says how the next pipe for a token is chosen (internal/tokens).
type Route = tokens.Route

const (
	// RouteRandom picks the next pipe with a seeded xorshift generator, as
	// the original's rand() did.
	RouteRandom = tokens.RouteRandom
	// RouteNext sends the token to pipe i+1 (wrapping).
	RouteNext = tokens.RouteNext
)

// ParseRoute maps a -route value to its Route.
func ParseRoute(s string) (Route, error) { return tokens.ParseRoute(s) }

// MaxInFlight bounds -l: a pipe made while the user is over
// pipe-user-pages-soft holds only two pages, and in self mode every token may
// land in one pipe, whose write must never block.
const MaxInFlight = 4096

// MaxUnixInFlight bounds -l for -fd unix: a unix stream socket's send
// buffer is charged a whole buffer for every one-byte write, so about 278
// fit in the default 212992 bytes.
const MaxUnixInFlight = 256

// Config is one benchmark run. Its JSON is the "config" block of a run's
// record (experiment/report), every setting: Backend as its name, durations in
// nanoseconds, 0 for a default not chosen (WaitTimeout, StallAfter, ...).
type Config struct {
	// Pipes is how many pipes are made (-n).
	Pipes int `json:"pipes"`
	// InFlight is how many tokens circulate (-l); 0 means the writer never
	// waits for credits (needs a writer thread or process).
	InFlight int `json:"in_flight"`
	// Backend is the readiness mechanism (-b); Bypass for none (-f).
	Backend *Factory `json:"backend"`
	// Writer says who forwards tokens.
	Writer WriterMode `json:"writer"`
	// Route picks the next pipe.
	Route Route `json:"route"`
	// Seed seeds the random route.
	Seed uint64 `json:"seed"`
	// Duration is how long the measured window lasts; 0 runs until Stop.
	Duration time.Duration `json:"duration_ns"`
	// Interval is the reporting interval (-i).
	Interval time.Duration `json:"interval_ns"`
	// WaitTimeout bounds each readiness call so that the reader notices a
	// stop request; calls that time out are counted as empty. Default 100ms.
	WaitTimeout time.Duration `json:"wait_timeout_ns"`
	// StallAfter ends the run with a StallError when no event arrives for this
	// long. Default: the larger of three intervals and 2 s.
	StallAfter time.Duration `json:"stall_after_ns"`
	// Source is the kind of descriptor tokens travel through (-fd).
	Source Source `json:"source"`
	// Churn removes and re-adds this many descriptors, chosen at random,
	// after every readiness call that returned events (-churn): epoll pays
	// two epoll_ctl calls per change, poll and select an edit of their
	// arrays.
	Churn int `json:"churn"`
	// Delay sleeps this long before every readiness call (-delay), the
	// "sleep hack" that batches events at the cost of latency.
	Delay time.Duration `json:"delay_ns"`
	// MinWait is the kernel's minimum wait for each readiness call that
	// blocks (-minwait; 0: none), for backends that declare MinWaits
	// (io_uring's min_wait_usec, Linux 6.12): the call returns once a full
	// ready slice is there, or once MinWait has passed and something is.
	// At most the readiness call's timeout (WaitTimeout).
	MinWait time.Duration `json:"min_wait_ns,omitempty"`
	// CPUs pins the measured threads (-cpu): one entry pins them all to
	// that CPU; otherwise it names a CPU for each thread in order, the
	// readers first, then the writers (a writer process's writer counts as
	// one). Empty leaves placement to the scheduler, unless Spread.
	CPUs []int `json:"cpus,omitempty"`
	// Spread pins the measured threads round-robin over the CPUs this
	// process may run on (-cpu spread), the readers first, then the
	// writers; CPUs must then be empty.
	Spread bool `json:"cpu_spread,omitempty"`
	// Readers is how many reader threads wait and read (-readers; 0 is
	// one). Each has a backend instance of its own over its own share of
	// the pipes, contiguous: reader k watches pipes k*Pipes/Readers up to
	// (k+1)*Pipes/Readers (perf bench epoll wait's -m; how servers use
	// epoll). Needs a writer thread.
	Readers int `json:"readers"`
	// Writers is how many writer threads forward tokens (-writers; 0 is
	// one), in thread mode: writer w owns the write ends of the pipes i
	// with i mod Writers = w, routes its tokens among those pipes only, and
	// gets back the credits of its own tokens, so that tokens and credits
	// are conserved per writer. InFlight is shared out among them.
	Writers int `json:"writers"`
	// MaxEvents is the most ready descriptors one readiness call may
	// return (-maxevents): the length of the ready slice handed to
	// Mechanism.Wait, which caps samples per call. 0 gives every pipe of the
	// reader room (the reader's share of Pipes).
	MaxEvents int `json:"maxevents"`
	// Share makes every reader wait on one backend instance over all the
	// pipes (-share, with Readers 2 or more, for a backend that declares
	// Shares): perf bench epoll wait's combined queue, where any reader may
	// be handed any pipe, instead of an instance per reader over its own
	// share. A pipe reported to two readers is read by one and found empty
	// by the other (counted as spurious).
	Share bool `json:"share"`
	// Nest registers the pipes in an epoll set Nest levels below the one
	// the reader waits on (-nest, epoll backends; 0 to MaxNest): the
	// waited-on set watches the next one down, and so on, and the last
	// holds the pipes. A readiness call is then one epoll_pwait on the top
	// set, which sleeps until readiness has propagated up through every
	// level, and one with timeout 0 on the bottom set for the descriptors:
	// two system calls (pipebench's own definition; perf bench epoll
	// wait's -N adds empty nested sets beside the descriptors instead).
	Nest int `json:"nest"`
	// Latency makes every token carry its write time, 8 bytes, so that the
	// reader records each token's write-to-read time; it costs a clock read
	// per event and per token write. With Rate, a token carries its
	// scheduled time instead (computed, not read from the clock), and the
	// reader's figure is the time from its scheduled send to its read.
	Latency bool `json:"latency"`
	// Rate, tokens per second, makes the writer open-loop (-rate): it
	// sends tokens on a schedule fixed when the window opens, token n
	// (from 0) due (n+1)/Rate seconds after, whatever the reader does
	// (internal/tokens, pace.go); several writers share it, each at
	// Rate/Writers. 0 is the closed loop of InFlight. Rate needs InFlight
	// 0 (no credits bound an open loop) and a writer thread or process.
	Rate float64 `json:"rate,omitempty"`
	// Stop, when closed, ends the run early; the result is still complete.
	// It and the functions below are the caller's hooks into the run, not
	// settings of it: the record leaves them out.
	Stop <-chan struct{} `json:"-"`
	// OnSetup is called once the pipes are ready and the reader and writer
	// threads are waiting to start: the measured window begins when it
	// returns (profilers start here).
	OnSetup func(Setup) `json:"-"`
	// OnDone is called as soon as the measured window ends, before teardown
	// (profilers stop here).
	OnDone func() `json:"-"`
	// Labels are pprof label key/value pairs ("backend", "epoll", ...) set
	// on the reader and writer goroutines of this process, so that a Go CPU
	// profile tells them apart; the harness adds "role" (reader, writer, or
	// reader+writer in self mode) and "writer" (the mode that ran). Nil sets
	// none.
	Labels []string `json:"labels,omitempty"`
	// OnInterval is called at the end of every full interval, from the
	// reporting goroutine.
	OnInterval func(Interval) `json:"-"`
}

// MarshalText writes a backend into JSON as its name (Config's record).
func (f *Factory) MarshalText() ([]byte, error) { return []byte(f.Name), nil }

// UnmarshalText reads a backend from a record: a Factory with its name
// only, which names the backend and cannot open it (Validate refuses it).
func (f *Factory) UnmarshalText(b []byte) error {
	*f = Factory{Name: string(b)}
	return nil
}

// Validate reports the first setting that cannot run, a *ConfigError
// naming its Config field.
func (c *Config) Validate() error {
	e, s, f, t := NewConfigError, Setting, Field, Text
	switch {
	case c.Pipes < 1:
		return e(s("Pipes", c.Pipes), t(": want at least 1 pipe"))
	case c.InFlight < 0 || c.InFlight > MaxInFlight:
		return e(s("InFlight", c.InFlight), t(": want 0 (unbounded) to %d tokens in flight", MaxInFlight))
	case c.Interval <= 0:
		return e(s("Interval", c.Interval), t(": want a positive interval"))
	case c.Duration < 0:
		return e(s("Duration", c.Duration), t(": want a duration >= 0 (0 runs until interrupted)"))
	case c.Duration > 0 && c.Interval > c.Duration:
		return e(s("Interval", c.Interval), t(" is longer than "), s("Duration", c.Duration), t(": want an interval no longer than the duration"))
	case c.Duration > 0 && c.Duration%c.Interval != 0:
		return e(s("Duration", c.Duration), t(" is not a whole number of "), s("Interval", c.Interval),
			t(" intervals: want "), f("Duration"), t(" a multiple of "), f("Interval"))
	case c.Backend == nil:
		return e(f("Backend"), t(": no backend given"))
	case c.Churn < 0 || c.Churn > c.Pipes:
		return e(s("Churn", c.Churn), t(": want 0 to "), f("Pipes"), t(" (%d) descriptors changed per readiness call", c.Pipes))
	case c.Delay < 0:
		return e(s("Delay", c.Delay), t(": want a duration >= 0"))
	case c.MinWait < 0 || c.MinWait > 0 && c.MinWait < time.Microsecond:
		return e(s("MinWait", c.MinWait), t(": want 0 (none) or at least 1µs (the kernel counts it in microseconds)"))
	case c.Source == SourceUnix && c.InFlight > MaxUnixInFlight:
		return e(s("Source", c.Source), t(" with "), s("InFlight", c.InFlight),
			t(": a unix stream socket holds only about 278 one-byte writes (each takes a buffer of its own), and every token may land in one: use "),
			s("InFlight", MaxUnixInFlight), t(" or less, or "), s("InFlight", 0))
	case c.Source == SourceEventfd && c.Latency:
		return e(s("Source", c.Source), t(" with "), f("Latency"), t(": an eventfd adds tokens up, so it cannot carry their write times"))
	case c.Readers < 0 || c.Readers > MaxThreads:
		return e(s("Readers", c.Readers), t(": want 1 to %d reader threads", MaxThreads))
	case c.Writers < 0 || c.Writers > MaxThreads:
		return e(s("Writers", c.Writers), t(": want 1 to %d writer threads", MaxThreads))
	case c.MaxEvents < 0:
		return e(s("MaxEvents", c.MaxEvents), t(": want at least 1 ready descriptor per readiness call (0: every pipe of the reader)"))
	case c.Nest < 0 || c.Nest > MaxNest:
		return e(s("Nest", c.Nest), t(": want 0 to %d levels of nested epoll sets (the kernel refuses deeper nesting with ELOOP)", MaxNest))
	case c.Spread && len(c.CPUs) > 0:
		return e(f("CPUs"), t(": spread or a list of CPUs, not both"))
	case len(c.Labels)%2 != 0:
		return e(s("Labels", fmt.Sprintf("%q", c.Labels)), t(": want key/value pairs"))
	}
	if err := c.checkThreads(); err != nil {
		return err
	}
	if err := c.checkShare(); err != nil {
		return err
	}
	if err := c.checkRate(); err != nil {
		return err
	}
	if len(c.CPUs) > 1 && len(c.CPUs) != c.measuredThreads() {
		return e(s("CPUs", c.CPUs), t(": want one CPU (every thread on it) or %d, one per measured thread: %s", c.measuredThreads(), c.threadList()))
	}
	if err := c.Backend.Validate(); err != nil {
		return e(f("Backend"), t(": %v", err))
	}
	if err := c.checkDriver(); err != nil {
		return err
	}
	if err := c.checkMinWait(); err != nil {
		return err
	}
	if c.Backend.Check != nil {
		// Before the writer checks below: a backend that refuses a setting
		// says why, rather than being advised a writer it cannot run with.
		if err := c.Backend.Check(c); err != nil {
			return err
		}
	}
	if c.InFlight == 0 && c.writerMode() == WriterSelf {
		return e(s("InFlight", 0), t(" (unbounded) needs a separate writer: use "), f("Writer"), t(" thread, process or auto"))
	}
	if mode := c.writerMode(); c.InFlight > 0 && (mode == WriterThread || mode == WriterAuto) && tokens.AsyncPreemptOff() {
		return e(s("Writer", mode), t(" with GODEBUG=asyncpreemptoff=1: a writer thread's sleep for credits ends only on a credit or the runtime's preemption signal, so a garbage collection that stopped the reader first would wait for good: use "),
			f("Writer"), t(" self or process, or run without asyncpreemptoff"))
	}
	return checkCPUs(c.CPUs)
}

// checkMinWait refuses a minimum wait where the backend's wait has none,
// or one longer than the readiness call's timeout, which it would outlast.
func (c *Config) checkMinWait() error {
	switch {
	case c.MinWait == 0:
		return nil
	case !c.Backend.Features.Has(MinWaits) && c.Backend.IsLoop():
		return NewConfigError(Field("MinWait"), Text(" with "), Setting("Backend", c.Backend.Name),
			Text(": only io_uring's wait has a minimum wait (uring, uring-oneshot, uring-epoll), and this backend makes no readiness call"))
	case !c.Backend.Features.Has(MinWaits):
		return NewConfigError(Field("MinWait"), Text(" with "), Setting("Backend", c.Backend.Name),
			Text(": only io_uring's wait has a minimum wait (uring, uring-oneshot, uring-epoll); "), Field("Delay"),
			Text(" sleeps before each readiness call instead"))
	}
	if limit := c.withDefaults().WaitTimeout; limit > 0 && c.MinWait > limit {
		return NewConfigError(Setting("MinWait", c.MinWait), Text(": want at most the readiness call's timeout, %v", limit))
	}
	return nil
}

// checkCPUs reports, in one line, every CPU this process may not run on.
func checkCPUs(cpus []int) error {
	if len(cpus) == 0 {
		return nil
	}
	ok, err := osthread.AllowedCPUs()
	if err != nil {
		return NewConfigError(Field("CPUs"), Text(": %v", err))
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
		return NewConfigError(Setting("CPUs", bad[0]), Text(": this process may run on CPUs %v", ok))
	}
	return NewConfigError(Setting("CPUs", bad), Text(": this process may not run on these; it may run on CPUs %v", ok))
}

// MaxNest bounds Nest: Linux refuses an epoll set more than 4 levels
// below another (EP_MAX_NESTS in fs/eventpoll.c; epoll_ctl fails with
// ELOOP, seen on 6.18).
const MaxNest = 4

// MaxThreads bounds Readers and Writers.
const MaxThreads = 1024

// readers and writers are how many reader and writer threads run (0 is
// one).
func (c *Config) readers() int { return max(c.Readers, 1) }
func (c *Config) writers() int { return max(c.Writers, 1) }

// several says whether the run has more than one reader or writer thread.
func (c *Config) several() bool { return c.readers() > 1 || c.writers() > 1 }

// measuredThreads is how many CPUs a -cpu list names: one per reader and
// one per writer (in self mode the writer's entry is the reader's thread's
// and is not used; a writer process's writer counts as one).
func (c *Config) measuredThreads() int { return c.readers() + c.writers() }

// threadList names the threads a -cpu list pins, in its order.
func (c *Config) threadList() string {
	if !c.several() {
		return "reader, writer"
	}
	return fmt.Sprintf("%d readers, then %d writers", c.readers(), c.writers())
}

// checkThreads refuses several readers or writers where the harness
// cannot run them.
func (c *Config) checkThreads() error {
	if !c.several() {
		return nil
	}
	e, s, t := NewConfigError, Setting, Text
	mode := c.writerMode()
	rd, wr := s("Readers", c.readers()), s("Writers", c.writers())
	switch {
	case c.Backend.IsLoop():
		return e(rd, t(" and "), wr, t(" with "), s("Backend", c.Backend.Name), t(": it makes no readiness call for several reader threads to share out"))
	case mode != WriterThread && mode != WriterAuto:
		return e(rd, t(" and "), wr, t(" need "), Field("Writer"), t(" thread (or auto), not %s: several readers or writers are threads of one process", mode))
	case c.Pipes < c.readers() || c.Pipes < c.writers():
		return e(s("Pipes", c.Pipes), t(" with "), rd, t(" and "), wr, t(": want at least one pipe per reader and per writer"))
	case c.InFlight > 0 && c.InFlight < c.writers():
		return e(s("InFlight", c.InFlight), t(" with "), wr, t(": want at least one token per writer (or "), s("InFlight", 0), t(", unbounded)"))
	}
	return nil
}

// checkShare refuses Share where it means nothing or cannot run.
func (c *Config) checkShare() error {
	if !c.Share {
		return nil
	}
	e, s, t := NewConfigError, Setting, Text
	share := Field("Share")
	switch {
	case !c.Backend.Features.Has(Shares):
		return e(share, t(" with "), s("Backend", c.Backend.Name), t(": only epoll lets several threads wait on one instance (epoll, epoll-et, epoll-oneshot)"))
	case c.readers() < 2:
		return e(share, t(" with "), s("Readers", c.readers()), t(": want 2 or more readers to share one backend instance"))
	case c.Churn > 0:
		return e(share, t(" with "), s("Churn", c.Churn), t(": readers sharing one instance would remove and re-add each other's descriptors"))
	}
	return nil
}

// MaxRate bounds Rate, tokens per second: far above what a pipe moves.
const MaxRate = 1e9

// checkRate refuses a Rate that cannot pace: out of range, with tokens
// in flight, or with a writer that cannot keep a schedule.
func (c *Config) checkRate() error {
	if c.Rate == 0 {
		return nil
	}
	e, s, t := NewConfigError, Setting, Text
	rate := s("Rate", strconv.FormatFloat(c.Rate, 'f', -1, 64))
	switch mode := c.writerMode(); {
	case !(c.Rate > 0 && c.Rate <= MaxRate): // NaN too
		return e(rate, t(": want a rate above 0 up to %g tokens per second (0: the closed loop of ", MaxRate), Field("InFlight"), t(")"))
	case c.InFlight > 0:
		return e(rate, t(" with "), s("InFlight", c.InFlight), t(": an open-loop writer sends on its schedule, with no tokens in flight to bound it: give one or the other"))
	case mode == WriterSelf:
		return e(rate, t(" with "), s("Writer", mode), t(": a reader that writes its tokens on cannot pace them: use "), Field("Writer"), t(" thread, process or auto"))
	case c.Backend.Features.Has(FollowsRoute):
		return e(rate, t(" with "), s("Backend", c.Backend.Name), t(": the bypass follows the tokens of a closed loop (use "), Field("InFlight"), t("), not an open-loop writer's"))
	}
	return nil
}

// part is reader k's part of the pipes: lo to hi-1; with Share, all of
// them.
func (c *Config) part(k int) (lo, hi int) {
	if c.Share {
		return 0, c.Pipes
	}
	r := c.readers()
	return k * c.Pipes / r, (k + 1) * c.Pipes / r
}

// writerOf is the writer that owns pipe i's write end.
func (c *Config) writerOf(i int) int { return i % c.writers() }

// writerPipes is how many pipes writer w owns.
func (c *Config) writerPipes(w int) int {
	n := c.writers()
	return (c.Pipes - w + n - 1) / n
}

// writerInFlight is writer w's share of InFlight (0: unbounded).
func (c *Config) writerInFlight(w int) int {
	n := c.writers()
	k := c.InFlight / n
	if w < c.InFlight%n {
		k++
	}
	return k
}

// cpuOf is the CPU -cpu puts measured thread i on (the readers are 0 to
// readers-1, the writers follow), or -1. cpus is Config.CPUs, or the list
// that Spread resolved.
func cpuOf(cpus []int, i int) int {
	switch len(cpus) {
	case 0:
		return -1
	case 1:
		return cpus[0]
	}
	return cpus[min(i, len(cpus)-1)]
}

// readerCPU and writerCPU are where -cpu puts reader k and writer w, or -1.
func (c *Config) readerCPU(k int) int { return cpuOf(c.CPUs, k) }
func (c *Config) writerCPU(w int) int { return cpuOf(c.CPUs, c.readers()+w) }

// spreadCPUs is the CPU list of Spread: the measured threads round-robin
// over allowed, the readers first.
func (c *Config) spreadCPUs(allowed []int) []int {
	cpus := make([]int, c.measuredThreads())
	for i := range cpus {
		cpus[i] = allowed[i%len(allowed)]
	}
	return cpus
}

// format is what one token is: a byte, a stamp (latency mode) or an
// eventfd increment.
func (c *Config) format() tokens.Format {
	switch {
	case c.Source == SourceEventfd:
		return tokens.Increment
	case c.Latency:
		return tokens.Stamp
	}
	return tokens.Byte
}

// writerMode is the writer mode asked for, auto resolved where the backend
// runs with one mode only.
func (c *Config) writerMode() WriterMode {
	if c.Writer == WriterAuto && c.Backend != nil && len(c.Backend.Writers) == 1 {
		return c.Backend.Writers[0]
	}
	return c.Writer
}

func (c *Config) withDefaults() Config {
	d := *c
	if d.WaitTimeout == 0 {
		d.WaitTimeout = 100 * time.Millisecond
	}
	if d.StallAfter == 0 {
		d.StallAfter = max(3*d.Interval, 2*time.Second)
	}
	d.Writer = d.writerMode()
	if d.Writer == WriterAuto && d.several() {
		// Several readers or writers are threads of one process.
		d.Writer = WriterThread
	}
	d.Readers, d.Writers = d.readers(), d.writers()
	return d
}
