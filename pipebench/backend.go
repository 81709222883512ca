package pipebench

import (
	"fmt"
	"slices"
	"time"
)

// A backend is one of two small tables, as libevent's eventop and Go's
// netpoll keep one small thing per mechanism. A Mechanism (select, poll,
// epoll and its variants, io_uring poll) answers the readiness call, Wait,
// and nothing else: the harness's reader loop (reader.go) asks it which
// pipes are ready and reads them. A Loop (the bypass, gonet, io_uring's
// rw variants) makes no readiness call the harness could ask for: it
// replaces the reader's loop, through the Surface (driver.go) that the
// reader's loop is built on too. Both register the pipes the same way
// (Interest), and neither has a method it cannot honour. A Factory opens
// one or the other (Open, OpenLoop); the command's table lists both, and
// -b takes names from both.

// Interest is the registration half both tables share: the pipes a
// backend watches (a Mechanism) or serves (a Loop), by tag.
//
// Add registers fd for readability under tag. Tags are integers from 0 to
// Options.Pipes-1 chosen by the caller (the harness uses the pipe's index);
// Wait reports tags, never descriptors, so that the caller needs no lookup.
// Adding a descriptor twice is an error. A backend may be given descriptors
// above 1024 and must handle them (select must not use a fixed FD_SETSIZE
// set); Options.MaxFD is a sizing hint, and Add may grow past it (allocating
// in Add, never in Wait).
//
// Remove stops watching fd. Once Remove returns, Wait never reports tag
// again until it is added anew, even if the descriptor was ready before
// (a Loop does not read it again). Removing a descriptor that is not
// registered is an error.
//
// Close releases what the backend holds (an epoll descriptor, a ring, a
// Loop's duplicates of the read ends). It does not close the registered
// descriptors; a second Close does nothing. Add, Remove and Close are
// called from one goroutine at a time, never while Wait or Loop.Run runs;
// the backend needs no lock.
//
// CtlCalls returns how many interest-changing system calls (epoll_ctl and the
// like) the backend has made so far; backends that change interest in user
// memory (poll, select, the bypass) return 0. It may be called from another
// goroutine.
type Interest interface {
	Add(fd int, tag int32) error
	Remove(fd int, tag int32) error
	CtlCalls() uint64
	Close() error
}

// Mechanism is one readiness-notification mechanism: it is told which
// descriptors to watch for readability (Interest) and reports, when asked,
// which of them are ready. Every implementation must provide these methods,
// and the mechanisms' part of the conformance suite (package pipebenchtest,
// TestMechanism) checks each rule on real pipes.
//
// Wait blocks until at least one registered descriptor is readable (data or
// end of file) or the timeout passes, stores the tags of ready descriptors in
// ready and returns how many it stored (never more than len(ready)). The
// timeout rule:
//
//	timeout < 0   wait until something is ready
//	timeout == 0  do not block: report what is ready now
//	timeout > 0   wait at most about timeout, rounded up to the mechanism's
//	              granularity (epoll_wait counts milliseconds), never less
//
// n == 0 with a nil error means the timeout passed with nothing ready; a
// ready slice with no room is an error, never a wait.
//
// Wait sleeps in the kernel the way a C program's thread does: in a raw
// system call (internal/waitcall.Raw6), which keeps the thread's P. Through
// syscall.Syscall the Go scheduler would take the P away from a thread that
// sleeps and make it win one back on waking, costing 35-40% of evts/sec
// with a writer thread. The caller runs Wait on a locked thread and lends
// the runtime a P for it (internal/osthread.LendPs). The runtime asks a
// running goroutine to stop (preemption, a stop-the-world) with a signal,
// which ends the wait call with EINTR: the call must be one the kernel never
// restarts after a signal (epoll_wait, ppoll, pselect6, io_uring_enter
// are such), and EINTR is retried inside Wait, with the time that remains,
// through a function call, whose prologue is where the goroutine stops; it
// never reaches the caller. Wait must not allocate, lock or read a clock per call beyond what
// its system call does: it is the hot loop. A descriptor reported ready and
// not read is reported again by level-triggered backends; backends with the
// EdgeTriggered feature report it again only when new data arrives, and the
// caller must then read until a short read. Backends with the OneShot
// feature disarm a descriptor when they report it and re-arm it, themselves,
// at the start of the next Wait (after the caller has read it).
//
// WaitSyscalls returns how many system calls of its readiness mechanism the
// backend has made so far, from any method: every epoll_pwait, ppoll,
// pselect6 or io_uring_enter, whether it waited, only submitted queued work
// (io_uring, when its submission queue is full) or was made again after
// EINTR. It is what strace counts of that call. A Wait answered without a
// system call (io_uring's completions already in the ring) adds none; a
// ctl call counted by CtlCalls is never counted here too. The caller of
// Wait reads it, from Wait's goroutine, when it publishes its counts (every
// so many readiness calls): it needs no atomic.
type Mechanism interface {
	Interest
	Wait(ready []int32, timeout time.Duration) (int, error)
	WaitSyscalls() uint64
}

// Sharer is implemented by a Mechanism whose kernel instance several
// threads may wait on at once, as epoll's can (Features Shares). Share
// returns another Mechanism on the same instance, with buffers and counters
// of its own: its Wait may run on another thread at the same time as the
// original's and every other share's, and its WaitSyscalls and CtlCalls
// count its own calls only. Registrations are made on the original (a
// share's Add and Remove change the same kernel instance, but the harness
// does not use them); closing a share releases nothing of the instance's,
// which the original's Close closes.
type Sharer interface {
	Share() (Mechanism, error)
}

// Armer is implemented by a backend (a Mechanism or a Loop) whose
// registrations must reach the kernel from the thread that will wait:
// io_uring, whose kernel posts a poll's completions, and does a read's
// work, from the thread that submitted the request. Its Add only
// records a registration; Arm hands every one recorded so far to the
// kernel, in as many system calls as the mechanism needs (counted by
// WaitSyscalls), and returns once the kernel has them all. It reports
// nothing: a descriptor ready already is reported by the next Wait. Wait
// hands over, itself, whatever was added after Arm (-churn), so Arm is
// never needed for correctness, only to keep the arming out of a measured
// window.
//
// The harness calls Arm once per run, on the reader thread, after every
// pipe is registered and before the measured window opens: the arming's
// time counts as setup, and its system calls and ctl calls are not in the
// window's counts.
type Armer interface {
	Arm() error
}

// Features are the capabilities a backend declares, so that the harness
// never discovers them by trial.
type Features uint32

const (
	// EdgeTriggered: a ready descriptor is reported once per arrival of new
	// data; the reader must read until a short read or EAGAIN.
	EdgeTriggered Features = 1 << iota
	// OneShot: a reported descriptor is disarmed until the backend re-arms it
	// at the start of the next Wait; re-arming costs a ctl call per event.
	OneShot
	// Goroutines: a Loop that reads on goroutines of its own, parked by
	// the Go runtime (gonet), not on the reader thread: the reader thread
	// then holds no P of its own, there is no reader thread to pin (-cpu
	// is refused), and the reading process's other threads' CPU is its
	// reading, not overhead (Setup.ReadsOnGoroutines).
	Goroutines
	// RingQueued: the work the backend hands the kernel is queued in an
	// io_uring submission queue and carried by its io_uring_enter calls
	// (WaitSyscalls), not made as system calls of its own: its interest
	// changes (CtlCalls, Setup.CtlInRing), and for a Loop (uring-rw) its
	// reads and writes, which Counts.Reads and Writes then count as
	// completed operations and whose io_uring_enter calls and completions
	// it counts through Worker.Entered (Setup.IOInRing). System calls per
	// token leave such entries out.
	RingQueued
	// FollowsRoute: a Loop on the reader thread that, with a writer
	// process, reads token k from the k-th pipe of the writer's route (the
	// same route, the same seed), waiting for it in a blocking read(2) of
	// that pipe: the bypass. The harness makes the read ends blocking for
	// the window and non-blocking again to drain them, and the writer
	// process closes its write ends as soon as it stops, so that a read
	// waiting for a token that will never be written returns (end of file).
	FollowsRoute
	// Nests: the backend can register its descriptors in an epoll set
	// Options.Nest levels below the one it waits on (-nest), each level an
	// epoll descriptor of its own.
	Nests
	// Shares: the backend is a Sharer, whose one kernel instance several
	// reader threads can wait on at once (-share).
	Shares
	// MinWaits: the backend's wait takes a minimum wait (Options.MinWait,
	// -minwait): io_uring's, whose io_uring_enter has one since Linux 6.12.
	MinWaits
)

// Has reports whether all of the features in g are in f.
func (f Features) Has(g Features) bool { return f&g == g }

// Options are what a backend is told when it is opened.
type Options struct {
	// Pipes is how many descriptors will be registered; backends size their
	// arrays from it once, so that Wait never allocates.
	Pipes int
	// MaxFD is the largest descriptor number that may be registered.
	MaxFD int
	// Nest, for a backend that declares Nests, is how many levels below the
	// epoll set Wait sleeps on the descriptors are registered (-nest; 0:
	// in that set): Nest sets more, each watched by the one above it. The
	// backend then holds Nest descriptors more.
	Nest int
	// MinWait, for a backend that declares MinWaits, is the least time a
	// Wait that blocks waits, unless a full ready slice is there sooner
	// (-minwait; 0: none). The backend documents the rule exactly.
	MinWait time.Duration
}

// Factory describes a backend and opens instances of it: a Mechanism
// (Open) or a Loop (OpenLoop), exactly one of the two. The command keeps
// the table of factories (Bypass among them); backends do not know about
// each other.
type Factory struct {
	// Name is what -b takes ("epoll", "epoll-et", ...).
	Name string
	// Summary is one line for the help text.
	Summary string
	// Features are the backend's declared capabilities.
	Features Features
	// FDs is how many descriptors one open instance holds itself, counted
	// when the harness checks the descriptor limit before making any pipe.
	FDs int
	// FDsPerPipe is how many more descriptors an instance holds for each
	// registered pipe (gonet's duplicates handed to the Go runtime), counted
	// in the reading process's plan too.
	FDsPerPipe int
	// Writers are the writer modes the backend runs with, in the order
	// WriterAuto tries them (the first whose descriptors fit); nil means
	// every mode, auto trying thread, then process.
	Writers []WriterMode
	// Check, when set, refuses before any work the settings this backend
	// cannot run with, as a *ConfigError written by the caller's Names
	// (Names.Errorf); Prepare calls it, as one rule of the run's, on the
	// Config with its defaults filled in.
	Check func(*Config, Names) error
	// Open creates an instance of a Mechanism; nil for a Loop.
	Open func(Options) (Mechanism, error)
	// OpenLoop creates an instance of a Loop; nil for a Mechanism.
	OpenLoop func(Options) (Loop, error)
}

// IsLoop says whether the factory opens a Loop: a backend that makes no
// readiness call the harness asks for, so that the settings acting on one
// (-churn, -delay, -maxevents, several readers) do not apply to it.
func (f *Factory) IsLoop() bool { return f.OpenLoop != nil }

// autoWriters are the modes WriterAuto tries for a backend that declares
// none.
var autoWriters = []WriterMode{WriterThread, WriterProcess}

// candidates are the modes WriterAuto tries, in order.
func (f *Factory) candidates() []WriterMode {
	if f.Writers == nil {
		return autoWriters
	}
	return f.Writers
}

// runsWith says whether the backend runs with writer mode m.
func (f *Factory) runsWith(m WriterMode) bool {
	return f.Writers == nil || slices.Contains(f.Writers, m)
}

// Validate reports a factory that cannot be used by the harness.
func (f *Factory) Validate() error {
	if f.Name == "" {
		return fmt.Errorf("backend factory has no name")
	}
	if (f.Open == nil) == (f.OpenLoop == nil) {
		return fmt.Errorf("backend %s: want one of Open (a Mechanism) and OpenLoop (a Loop)", f.Name)
	}
	return nil
}
