package epoll

import (
	"os"
	"testing"

	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/pipebench/pipebenchtest"
)

// TestMain lets this test binary serve as its own writer process, for the
// conformance suite's harness runs.
func TestMain(m *testing.M) {
	pipebench.RunWriterProcessIfAsked()
	os.Exit(m.Run())
}

func TestEpoll(t *testing.T) {
	for _, f := range Factories {
		t.Run(f.Name, func(t *testing.T) { pipebenchtest.TestBackend(t, f) })
	}
}

// TestExclusive runs the conformance suite with Options.Exclusive set on the
// variants that accept it: with a single waiter EPOLLEXCLUSIVE must change
// nothing the contract promises.
func TestExclusive(t *testing.T) {
	for _, f := range []pipebench.Factory{LevelFactory, EdgeFactory} {
		t.Run(f.Name, func(t *testing.T) { pipebenchtest.TestBackend(t, exclusive(f)) })
	}
}

func TestOneShotRefusesExclusive(t *testing.T) {
	b, err := OneShotFactory.Open(pipebench.Options{Pipes: 1, MaxFD: 10, Exclusive: true})
	if err == nil {
		b.Close()
		t.Fatal("epoll-oneshot opened with Exclusive; the kernel refuses EPOLLEXCLUSIVE|EPOLLONESHOT, so Open should")
	}
}

// exclusive returns f opening its backends with Options.Exclusive set.
func exclusive(f pipebench.Factory) pipebench.Factory {
	return withOptions(f, "+exclusive", func(o *pipebench.Options) { o.Exclusive = true })
}

// TestSyscallSleep runs the conformance suite with Options.SyscallSleep on
// the level-triggered variant, EPOLLEXCLUSIVE on and off, as the herd's
// waiters open it: sleeping through syscall.Syscall must change nothing the
// contract promises.
func TestSyscallSleep(t *testing.T) {
	f := withOptions(LevelFactory, "+syscall", func(o *pipebench.Options) { o.SyscallSleep = true })
	for _, f := range []pipebench.Factory{f, exclusive(f)} {
		t.Run(f.Name, func(t *testing.T) { pipebenchtest.TestBackend(t, f) })
	}
}

// withOptions is f, named with suffix, opening backends with options
// edited by edit.
func withOptions(f pipebench.Factory, suffix string, edit func(*pipebench.Options)) pipebench.Factory {
	open := f.Open
	f.Name += suffix
	f.Open = func(o pipebench.Options) (pipebench.Backend, error) {
		edit(&o)
		return open(o)
	}
	return f
}

func BenchmarkEpoll(b *testing.B) {
	for _, f := range Factories {
		b.Run(f.Name, func(b *testing.B) { pipebenchtest.BenchmarkPingPong(b, f) })
	}
}
