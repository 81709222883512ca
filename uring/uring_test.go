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
func openOrSkip(t *testing.T, o pipebench.Options, multi bool) (pipebench.Backend, error) {
	t.Helper()
	be, err := open(o, multi, pollSettings)
	pipebenchtest.SkipIfRefused(t, err)
	return be, err
}

func TestUring(t *testing.T) {
	for _, f := range Factories {
		t.Run(f.Name, func(t *testing.T) { pipebenchtest.TestBackend(t, f) })
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
	f.Open = func(o pipebench.Options) (pipebench.Backend, error) {
		runtime.LockOSThread()
		return open(o)
	}
	return f
}
