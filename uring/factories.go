// Package uring holds the io_uring backends of pipebench. Two learn
// readiness from the completions of IORING_OP_POLL_ADD requests rather than
// from a wait call that returns a list; one waits on an epoll set through
// the ring; three more let io_uring do the reads and the writes
// themselves. It is written over golang.org/x/sys/unix (io_uring_setup,
// io_uring_enter, io_uring_register and the mmap'd rings; no cgo, no
// library): ring.go sets a ring up and moves entries through it, abi.go
// holds the kernel's layouts, registry.go the registrations both kinds
// keep, backend.go the poll Backend, epollwait.go the epoll one,
// minwait.go the kernel's minimum wait their waits can take, rw.go and
// rwdrive.go the reading and writing one, bufring.go its provided
// buffers.
//
// Two variants: "uring" arms one multishot poll per descriptor (Linux 5.13)
// that posts a completion per wake-up and is armed again only when the
// kernel ends it; "uring-oneshot" arms single-shot polls, each re-armed by
// the next Wait, one submission per event, the io_uring analogue of
// EPOLLONESHOT. Registration changes are queued and submitted with the next
// wait, in the same system call.
//
// "uring-epoll" keeps the pipes in an epoll set (epoll_ctl) and waits for
// it with an IORING_OP_EPOLL_WAIT request (Linux 6.15), reading the events
// from its completion: an epoll event loop whose wait has moved into
// io_uring. The three Mechanisms' waits take io_uring's minimum wait
// (Options.MinWait, Linux 6.12).
//
// Three variants do the I/O in the ring (a pipebench.Loop, like the
// bypass: the harness calls Run on the reader thread): "uring-rw" arms
// one multishot read per pipe into a registered ring of provided buffers
// (Linux 6.7), "uring-rw-oneshot" a plain read per pipe re-armed after each
// completion (Linux 5.6), "uring-rw-sqpoll" is uring-rw with a kernel
// thread consuming the submission queue (IORING_SETUP_SQPOLL). Forwarded
// tokens and credit words are writes queued in the ring and handed to the
// kernel together, in the io_uring_enter that waits.
//
// When io_uring is disabled or missing, or the kernel lacks an operation a
// variant needs, Open fails with one line saying why (see avail.go, rw.go).
//
// Imports: as imports_test.go at the module's root allows (the table in
// docs/contributing.md shows the rules).
package uring

import "github.com/pipebench/pipebench/pipebench"

// Factory opens multishot-poll backends. A multishot poll on a pipe posts a
// completion each time the pipe is written, not while it stays readable, so
// the backend is edge-triggered: the reader reads until a short read.
var Factory = pipebench.Factory{
	Name:     "uring",
	Summary:  "io_uring multishot poll (IORING_POLL_ADD_MULTI, Linux 5.13), re-armed when the kernel ends it",
	Features: pipebench.EdgeTriggered | pipebench.RingQueued | pipebench.MinWaits,
	FDs:      1,
	Check:    checker("uring", pollSettings, "uring", pollSettings, false),
	Open:     opener(true, pollSettings),
}

// OneShotFactory opens single-shot-poll backends: each completion disarms
// its descriptor and the next Wait submits a new POLL_ADD for it, in the
// io_uring_enter call that waits.
var OneShotFactory = pipebench.Factory{
	Name:     "uring-oneshot",
	Summary:  "io_uring single-shot poll (IORING_OP_POLL_ADD), re-armed by the next wait",
	Features: pipebench.OneShot | pipebench.RingQueued | pipebench.MinWaits,
	FDs:      1,
	Check:    checker("uring-oneshot", pollSettings, "uring-oneshot", pollSettings, false),
	Open:     opener(false, pollSettings),
}

// RWFactory opens backends whose io_uring reads and writes itself:
// multishot reads into provided buffers, writes queued together.
var RWFactory = pipebench.Factory{
	Name:     "uring-rw",
	Summary:  "io_uring does the I/O: multishot reads into provided buffers (Linux 6.7), writes queued, one io_uring_enter per batch",
	Features: pipebench.RingQueued,
	FDs:      1,
	Check:    checker("uring-rw", rwSettings, "uring-rw", rwSettings, false),
	OpenLoop: rwOpener(true, false, rwSettings),
}

// RWOneShotFactory is RWFactory with plain reads, each re-armed after its
// completion, for kernels before 6.7.
var RWOneShotFactory = pipebench.Factory{
	Name:     "uring-rw-oneshot",
	Summary:  "io_uring does the I/O: plain reads re-armed after each completion (Linux 5.6), writes queued",
	Features: pipebench.RingQueued,
	FDs:      1,
	Check:    checker("uring-rw-oneshot", rwSettings, "uring-rw-oneshot", rwSettings, false),
	OpenLoop: rwOpener(false, false, rwSettings),
}

// RWSQPollFactory is RWFactory with a kernel thread that consumes the
// submission queue (IORING_SETUP_SQPOLL): no system call to submit, one
// only to wait with an empty completion queue or to wake the thread.
var RWSQPollFactory = pipebench.Factory{
	Name:     "uring-rw-sqpoll",
	Summary:  "uring-rw with IORING_SETUP_SQPOLL: a kernel thread of the process submits, no system call to submit",
	Features: pipebench.RingQueued,
	FDs:      1,
	Check:    checker("uring-rw-sqpoll", sqpollSettings, "uring-rw-sqpoll", sqpollSettings, true),
	OpenLoop: rwOpener(true, true, sqpollSettings),
}

// EpollFactory opens backends that wait on an epoll set holding the pipes
// through the ring: an IORING_OP_EPOLL_WAIT (Linux 6.15) whose completion
// brings the events. Level-triggered, as the epoll set is.
var EpollFactory = pipebench.Factory{
	Name:     "uring-epoll",
	Summary:  "io_uring waits on an epoll set of the pipes (IORING_OP_EPOLL_WAIT, Linux 6.15); epoll_ctl registers them",
	Features: pipebench.MinWaits,
	FDs:      2,
	Check:    epollChecker("uring-epoll", epollSettings),
	Open:     epollOpener(epollSettings),
}

// checker is the Check of a factory with settings s: it refuses, before
// any pipe is made, a setting the kernel lacks, and a minimum wait.
func checker(baseName string, applies Settings, name string, s Settings, sqpoll bool) func(*pipebench.Config, pipebench.Names) error {
	return func(c *pipebench.Config, n pipebench.Names) error {
		if err := checkSettings(name, s, sqpoll, baseName, applies, n); err != nil {
			return err
		}
		return checkMinWait(c, name, n)
	}
}

// PollFactories are the poll variants; RWFactories those that do the I/O.
var (
	PollFactories = []pipebench.Factory{Factory, OneShotFactory}
	RWFactories   = []pipebench.Factory{RWFactory, RWOneShotFactory, RWSQPollFactory}
)

// Factories are every variant, for the command's table of backends.
var Factories = append(append(append([]pipebench.Factory{}, PollFactories...), EpollFactory), RWFactories...)
