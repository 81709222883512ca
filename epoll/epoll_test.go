package epoll

import (
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/internal/child"
	"github.com/pipebench/pipebench/internal/fdlimit"
	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/pipebench/pipebenchtest"
)

// TestMain lets this test binary serve as its own writer process, for the
// conformance suite's harness runs.
func TestMain(m *testing.M) {
	child.Serve()
	os.Exit(m.Run())
}

func TestEpoll(t *testing.T) {
	for _, f := range Factories {
		t.Run(f.Name, func(t *testing.T) { pipebenchtest.TestMechanism(t, f) })
	}
}

// TestExclusive runs the conformance suite with Waiter.Exclusive set on the
// variants that accept it: with a single waiter EPOLLEXCLUSIVE must change
// nothing the contract promises.
func TestExclusive(t *testing.T) {
	for _, f := range []pipebench.Factory{
		asWaiter(LevelFactory, 0, Waiter{Exclusive: true}),
		asWaiter(EdgeFactory, unix.EPOLLET, Waiter{Exclusive: true}),
	} {
		t.Run(f.Name, func(t *testing.T) { pipebenchtest.TestMechanism(t, f) })
	}
}

func TestOneShotRefusesExclusive(t *testing.T) {
	b, err := open(pipebench.Options{Pipes: 1, MaxFD: 10}, unix.EPOLLONESHOT, Waiter{Exclusive: true})
	if err == nil {
		b.Close()
		t.Fatal("epoll-oneshot opened with Exclusive; the kernel refuses EPOLLEXCLUSIVE|EPOLLONESHOT, so open should")
	}
}

// TestOpenWaiter runs the conformance suite on the sets the herd's waiters
// open (OpenWaiter: sleeping through syscall.Syscall, EPOLLEXCLUSIVE off
// and on): neither may change anything the contract promises.
func TestOpenWaiter(t *testing.T) {
	for _, w := range []Waiter{{SyscallSleep: true}, {SyscallSleep: true, Exclusive: true}} {
		f := LevelFactory
		f.Name += fmt.Sprintf("+waiter(exclusive=%v)", w.Exclusive)
		f.Open = func(o pipebench.Options) (pipebench.Mechanism, error) { return OpenWaiter(o, w) }
		t.Run(f.Name, func(t *testing.T) { pipebenchtest.TestMechanism(t, f) })
	}
}

// asWaiter is variant f (its event flags mode) opening its sets as waiter w.
func asWaiter(f pipebench.Factory, mode uint32, w Waiter) pipebench.Factory {
	f.Name += "+exclusive"
	f.Open = func(o pipebench.Options) (pipebench.Mechanism, error) { return open(o, mode, w) }
	return f
}

// withOptions is f, named with suffix, opening backends with options
// edited by edit.
func withOptions(f pipebench.Factory, suffix string, edit func(*pipebench.Options)) pipebench.Factory {
	open := f.Open
	f.Name += suffix
	f.Open = func(o pipebench.Options) (pipebench.Mechanism, error) {
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

// TestNested runs the conformance suite on every variant with the
// descriptors one level and MaxNest levels below the set Wait sleeps on.
func TestNested(t *testing.T) {
	for _, depth := range []int{1, pipebench.MaxNest} {
		for _, f := range Factories {
			f := withOptions(f, fmt.Sprintf("+nest%d", depth), func(o *pipebench.Options) { o.Nest = depth })
			t.Run(f.Name, func(t *testing.T) { pipebenchtest.TestMechanism(t, f) })
		}
	}
}

// TestNestedChain checks what nesting costs and holds: depth more epoll
// descriptors, closed by Close; two epoll_pwait calls for a readiness call
// that finds a descriptor ready (the top set's, then the bottom set's), one
// for a call that times out; and the kernel's own refusal one level deeper
// than MaxNest, with nothing left open.
func TestNestedChain(t *testing.T) {
	before := openFDs(t)
	b, err := LevelFactory.Open(pipebench.Options{Pipes: 1, MaxFD: 1 << 16, Nest: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := openFDs(t) - before; got != 4 {
		t.Errorf("nest 3 holds %d epoll descriptors, want 4 (the waited-on set and three below it)", got)
	}
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if p[0] >= 0 {
			unix.Close(p[0])
			unix.Close(p[1])
		}
	}()
	if err := b.Add(p[0], 7); err != nil {
		t.Fatal(err)
	}
	ready := make([]int32, 4)
	if n, err := b.Wait(ready, 0); n != 0 || err != nil {
		t.Fatalf("Wait on an empty pipe: %d ready, %v; want 0, nil", n, err)
	}
	if got := b.WaitSyscalls(); got != 1 {
		t.Errorf("a call that found nothing made %d epoll_pwait calls, want 1 (the top set's)", got)
	}
	if _, err := unix.Write(p[1], []byte{1}); err != nil {
		t.Fatal(err)
	}
	n, err := b.Wait(ready, time.Second)
	if n != 1 || err != nil || ready[0] != 7 {
		t.Fatalf("Wait with a token three sets down: %d ready (%v), %v; want tag 7", n, ready[:n], err)
	}
	if got := b.WaitSyscalls(); got != 3 {
		t.Errorf("after a call that found a descriptor: %d epoll_pwait calls in all, want 3 (1 + the top set's and the bottom set's)", got)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	unix.Close(p[0])
	unix.Close(p[1])
	p[0] = -1
	if got := openFDs(t) - before; got != 0 {
		t.Errorf("Close left %d descriptors open", got)
	}

	_, err = LevelFactory.Open(pipebench.Options{Pipes: 1, MaxFD: 1 << 16, Nest: pipebench.MaxNest + 1})
	if !errors.Is(err, unix.ELOOP) {
		t.Errorf("nest %d: Open returned %v, want the kernel's ELOOP (MaxNest is %d)", pipebench.MaxNest+1, err, pipebench.MaxNest)
	}
	if got := openFDs(t) - before; got != 0 {
		t.Errorf("a refused nest left %d descriptors open", got)
	}
}

// openFDs counts this process's open descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	n, err := fdlimit.OpenFDs()
	if err != nil {
		t.Fatal(err)
	}
	return n
}
