package pipebench

import (
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// The pieces below let experiments that make their own pipes and readers
// (pipebench herd) drive tokens exactly as a run's writer does, without a
// copy of its loop.

// TokenWriter is a run's credit-driven writer: it keeps InFlight tokens in
// flight, writing a token into a pipe chosen by the seeded random route for
// every credit that comes back on the credit pipe, until the stop word.
type TokenWriter struct{ w writer }

// NewTokenWriter returns a writer over the pipes' non-blocking write ends.
// credits is the read end of a pipe made by NewCreditPipe; inFlight must be
// at least 1 (the unbounded writer is the harness's own business).
func NewTokenWriter(wfds []int32, seed uint64, inFlight int, credits int32) *TokenWriter {
	return &TokenWriter{w: writer{
		wfds: wfds, route: newRouter(RouteRandom, seed, len(wfds)),
		inFlight: max(inFlight, 1), credits: credits, stop: new(atomic.Bool),
	}}
}

// Run writes tokens until StopTokenWriter's word arrives or a write fails.
// Call it from a locked OS thread: it blocks in read(2).
func (t *TokenWriter) Run() error { return t.w.run() }

// Sent is the number of tokens written; read it after Run has returned.
func (t *TokenWriter) Sent() uint64 { return t.w.sent }

// NewCreditPipe makes a credit pipe whose write end never blocks (the
// readers') and whose read end the writer thread waits on with ppoll; it holds more credit words than
// MaxInFlight tokens can produce.
func NewCreditPipe() (r, w int32, err error) { return newCreditPipe(false, MaxInFlight) }

// SendCredits returns c tokens' credit to the writer in one 8-byte write,
// which the kernel keeps whole however many readers share the pipe.
func SendCredits(fd int32, buf *[8]byte, c uint64) error { return sendCredit(fd, buf, c) }

// StopTokenWriter tells the writer reading the credit pipe to stop.
func StopTokenWriter(fd int32) error {
	var b [8]byte
	return sendCredit(fd, &b, stopCredit)
}

// GetUsage is getrusage(2) for who: unix.RUSAGE_THREAD or RUSAGE_SELF.
func GetUsage(who int) (Usage, error) { return getUsage(who) }

// ThreadUsage is the calling thread's usage; lock the goroutine to its
// thread first.
func ThreadUsage() (Usage, error) { return getUsage(unix.RUSAGE_THREAD) }
