package pipebench

import (
	"fmt"

	"github.com/pipebench/pipebench/internal/child"
)

// childBaseFDs is what a freshly started writer process holds before its
// pipes: stdin, stdout, stderr, the control socket, the Go runtime's own
// epoll descriptor and its wake-up eventfd, and a spare.
const childBaseFDs = 7

// fdPlan is the writer mode chosen for a run and the descriptor arithmetic
// behind it.
type fdPlan struct {
	Writer WriterMode
	// Reason says why auto chose the writer it chose; empty otherwise.
	Reason string
	// ReaderFDs and WriterFDs are the peak descriptors the reading process
	// and (process mode) the writer process will hold.
	ReaderFDs, WriterFDs int
	// Limit is RLIMIT_NOFILE in each process.
	Limit uint64
}

// need returns the peak descriptors each process holds for mode.
func need(mode WriterMode, pipes, base, backendFDs, perChannel int) (reader, writer int) {
	switch mode {
	case WriterSelf:
		return base + backendFDs + perChannel*pipes, 0
	case WriterThread:
		// One pipe carries credits between reader and writer.
		return base + backendFDs + perChannel*pipes + 2, 0
	default:
		// The reader keeps the read ends, the control socket and the child's
		// pidfd; write ends pass through it a batch at a time.
		return base + backendFDs + pipes + 2 + child.MaxFDs, childBaseFDs + pipes
	}
}

// planFDs decides the writer mode and checks that the run fits, before any
// pipe is made: a *LimitError written by n if not. base is the number of
// descriptors already open.
func planFDs(c *Config, base int, limit uint64, n Names) (fdPlan, error) {
	// Each reader opens a backend instance of its own, nesting or not,
	// unless they share one.
	instances := c.readers()
	if c.Share {
		instances = 1
	}
	bfds := (c.Backend.FDs + c.Nest) * instances
	if c.Source == SourceTCP {
		bfds++ // the listener
	}
	per := c.Source.fdsPerChannel()
	dups := c.Backend.FDsPerPipe // descriptors the backend holds per pipe, in the reading process
	need := func(mode WriterMode, pipes, base, bfds int) (int, int) {
		return need(mode, pipes, base, bfds+dups*pipes, per)
	}
	fits := func(n int) bool { return uint64(n) <= limit }
	mode := c.Writer
	p := fdPlan{Limit: limit}
	if mode == WriterAuto {
		// The first of the backend's modes that fits, else its last.
		modes := c.Backend.candidates()
		for i, m := range modes {
			mode = m
			r, w := need(m, c.Pipes, base, bfds)
			if fits(max(r, w)) {
				break
			}
			if i == 0 && len(modes) > 1 {
				p.Reason = fmt.Sprintf("%s mode needs %d descriptors, limit %d", m, max(r, w), limit)
			}
		}
	}
	p.Writer = mode
	p.ReaderFDs, p.WriterFDs = need(mode, c.Pipes, base, bfds)
	worst := max(p.ReaderFDs, p.WriterFDs)
	if fits(worst) {
		return p, nil
	}
	maxPipes := func(m WriterMode) int {
		k := c.Pipes
		for k > 0 {
			r, w := need(m, k, base, bfds)
			if fits(max(r, w)) {
				break
			}
			k--
		}
		return k
	}
	head := "%s with %s needs %d descriptors in one process, limit is %d (RLIMIT_NOFILE hard limit): use %s or less, "
	args := []any{Set("Pipes", c.Pipes), Set("Writer", mode), worst, limit, Set("Pipes", maxPipes(mode))}
	if mode == WriterProcess || !c.Backend.runsWith(WriterProcess) || c.InFlight == 0 && mode == WriterSelf || c.Source.shared() {
		// A writer process helps only when the reader and writer hold
		// different descriptors (not an eventfd's one).
		return p, n.LimitErrorf(worst, limit, head+"or raise the hard limit (ulimit -Hn, needs CAP_SYS_RESOURCE)", args...)
	}
	return p, n.LimitErrorf(worst, limit, head+"or %s (each process then holds about %s descriptors), or raise the hard limit (needs CAP_SYS_RESOURCE)",
		append(args, Set("Writer", WriterProcess), Field("Pipes"))...)
}
