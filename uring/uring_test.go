package uring

import (
	"runtime"
	"testing"

	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/pipebench/pipebenchtest"
)

// openOrSkip opens a backend of the variant, skipping the test, saying
// why, where the kernel or a seccomp filter refuses io_uring (ENOSYS,
// EPERM, a kernel too old); any other error is the caller's to fail on.
func openOrSkip(t *testing.T, o pipebench.Options, multi bool) (pipebench.Mechanism, error) {
	t.Helper()
	be, err := open(o, multi, pollSettings)
	pipebenchtest.SkipIfRefused(t, err)
	return be, err
}

// TestUring runs the conformance suite's part for each table: the poll
// variants are Mechanisms, the rw ones Loops.
func TestUring(t *testing.T) {
	for _, f := range PollFactories {
		t.Run(f.Name, func(t *testing.T) { pipebenchtest.TestMechanism(t, f) })
	}
	for _, f := range RWFactories {
		t.Run(f.Name, func(t *testing.T) { pipebenchtest.TestLoop(t, f) })
	}
}

// conform runs the conformance suite's part for f's table.
func conform(t *testing.T, f pipebench.Factory) {
	if f.IsLoop() {
		pipebenchtest.TestLoop(t, f)
	} else {
		pipebenchtest.TestMechanism(t, f)
	}
}

// BenchmarkUring measures both variants as the harness runs them: on a
// locked thread. The kernel posts a poll's completions from the thread that
// submitted it, so a benchmark goroutine that moves to another thread would
// wake its old one for every event.
func BenchmarkUring(b *testing.B) {
	for _, f := range PollFactories {
		b.Run(f.Name, func(b *testing.B) { pipebenchtest.BenchmarkPingPong(b, lockedThread(f)) })
	}
}

// lockedThread returns f opening its backends with the calling goroutine
// locked to its thread; the benchmark's goroutine ends locked, and its
// thread with it.
func lockedThread(f pipebench.Factory) pipebench.Factory {
	open := f.Open
	f.Open = func(o pipebench.Options) (pipebench.Mechanism, error) {
		runtime.LockOSThread()
		return open(o)
	}
	return f
}
