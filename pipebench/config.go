package pipebench

import (
	"fmt"
	"time"

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

// Config is one benchmark run's settings, in four groups: the workload
// (what moves through the pipes), the readiness call (the backend and how
// the reader asks it), the threads (who reads and writes, where), and the
// window (what is measured, and summarised). Its JSON is the "config"
// block of a run's record (experiment/report), flat: every setting at the
// top level, Backend as its name, durations in nanoseconds, 0 for a
// default not chosen (WaitTimeout, StallAfter, ...). What a caller hears of
// a run, and how it ends one early, are not settings: they are Observers,
// given to Run beside the Config.
type Config struct {
	Workload
	Readiness
	Threads
	Window
}

// Workload is what moves through the pipes: how many, how many tokens,
// along which route, through which kind of descriptor, in what form.
type Workload struct {
	// Pipes is how many pipes are made (-n).
	Pipes int `json:"pipes"`
	// InFlight is how many tokens circulate (-l); 0 means the writer never
	// waits for credits (needs a writer thread or process).
	InFlight int `json:"in_flight"`
	// Route picks the next pipe for a token (-route).
	Route Route `json:"route"`
	// RouteSeed seeds the random route (-seed).
	RouteSeed uint64 `json:"seed"`
	// Source is the kind of descriptor tokens travel through (-fd).
	Source Source `json:"source"`
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
}

// Readiness is the backend and how the reader asks it which pipes are
// ready.
type Readiness struct {
	// Backend is the readiness mechanism (-b); Bypass for none (-f).
	Backend *Factory `json:"backend"`
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
}

// Threads are who reads and who forwards the tokens, how many of each,
// and on which CPUs.
type Threads struct {
	// Writer says who forwards tokens (-writer).
	Writer WriterMode `json:"writer"`
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
	// CPUs pins the measured threads (-cpu): one entry pins them all to
	// that CPU; otherwise it names a CPU for each thread in order, the
	// readers first, then the writers (a writer process's writer counts as
	// one). Empty leaves placement to the scheduler, unless Spread.
	CPUs []int `json:"cpus,omitempty"`
	// Spread pins the measured threads round-robin over the CPUs this
	// process may run on (-cpu spread), the readers first, then the
	// writers; CPUs must then be empty.
	Spread bool `json:"cpu_spread,omitempty"`
}

// Window is what is measured: for how long, in which intervals, how long
// a readiness call or the run may go without news, and how many leading
// intervals the summary leaves out.
type Window struct {
	// Duration is how long the measured window lasts (-d); 0 runs until
	// Observers.Stop.
	Duration time.Duration `json:"duration_ns"`
	// Interval is the reporting interval (-i).
	Interval time.Duration `json:"interval_ns"`
	// Warmup is how many leading intervals the summary leaves out
	// (-warmup; pipebench/summary): the run measures them all. A run of a
	// Duration must leave at least one interval after them.
	Warmup int `json:"warmup_intervals"`
	// WaitTimeout bounds each readiness call so that the reader notices a
	// stop request; calls that time out are counted as empty. Default 100ms.
	WaitTimeout time.Duration `json:"wait_timeout_ns"`
	// StallAfter ends the run with a StallError when no event arrives for this
	// long. Default: the larger of three intervals and 2 s.
	StallAfter time.Duration `json:"stall_after_ns"`
}

// MarshalText writes a backend into JSON as its name (Config's record).
func (f *Factory) MarshalText() ([]byte, error) { return []byte(f.Name), nil }

// UnmarshalText reads a backend from a record: a Factory with its name
// only, which names the backend and cannot open it (Prepare refuses it).
func (f *Factory) UnmarshalText(b []byte) error {
	*f = Factory{Name: string(b)}
	return nil
}

// MaxNest bounds Nest: Linux refuses an epoll set more than 4 levels
// below another (EP_MAX_NESTS in fs/eventpoll.c; epoll_ctl fails with
// ELOOP, seen on 6.18).
const MaxNest = 4

// MaxThreads bounds Readers and Writers.
const MaxThreads = 1024

// MaxRate bounds Rate, tokens per second: far above what a pipe moves.
const MaxRate = 1e9

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
func (w *Workload) format() tokens.Format {
	switch {
	case w.Source == SourceEventfd:
		return tokens.Increment
	case w.Latency:
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

// withDefaults is c with its defaults filled in: WaitTimeout, StallAfter,
// one reader and one writer, and the writer auto resolves to where it can
// (the backend's one mode; a thread, for several readers or writers).
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
	if d.Readers == 0 {
		d.Readers = 1
	}
	if d.Writers == 0 {
		d.Writers = 1
	}
	return d
}
