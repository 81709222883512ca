package uring

import (
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/pipebench/pipebenchtest"
)

// TestUringEpoll runs the conformance suite's part for Mechanisms on
// uring-epoll: level-triggered readiness, registration, EINTR and the
// timeout rule, counts, and harness runs in every writer mode with every
// token accounted for.
func TestUringEpoll(t *testing.T) { pipebenchtest.TestMechanism(t, EpollFactory) }

// epollPipes opens uring-epoll with options o (Pipes at least n) and
// registers n new pipes, pipe i under tag i; it skips where the kernel
// refuses io_uring or lacks IORING_OP_EPOLL_WAIT.
func epollPipes(t *testing.T, n int, o pipebench.Options) (*epollBackend, [][2]int) {
	t.Helper()
	o.Pipes, o.MaxFD = max(o.Pipes, n), 64
	m, err := EpollFactory.Open(o)
	pipebenchtest.SkipIfRefused(t, err)
	if err != nil {
		t.Fatal(err)
	}
	b := m.(*epollBackend)
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return b, registerPipes(t, b, n)
}

// TestEpollWaitStaysInFlight: a Wait that times out leaves its epoll wait
// in the kernel, and the Waits after it wait for that one, submitting
// none, until its completion is taken; the Wait after that submits anew.
func TestEpollWaitStaysInFlight(t *testing.T) {
	b, pipes := epollPipes(t, 3, pipebench.Options{})
	ready := make([]int32, 3)
	submitted := func() uint32 { return b.ring.tail }
	for i, timeout := range []time.Duration{0, 5 * time.Millisecond, 0} {
		if n, err := b.Wait(ready, timeout); n != 0 || err != nil {
			t.Fatalf("wait %d (timeout %v), nothing written: %d, %v", i, timeout, n, err)
		}
		if got := submitted(); got != 1 || !b.inFlight {
			t.Fatalf("after wait %d (timeout %v), nothing written: %d epoll waits submitted (in flight %v), want the first one only, in flight",
				i, timeout, got, b.inFlight)
		}
	}
	write1(t, pipes[1][1])
	if n, err := b.Wait(ready, time.Second); n != 1 || err != nil || ready[0] != 1 {
		t.Fatalf("wait after a write to pipe 1: %v %v, %v", n, ready[:n], err)
	}
	if got := submitted(); got != 1 || b.inFlight {
		t.Fatalf("the wait in flight reported pipe 1, yet %d epoll waits submitted (in flight %v), want 1, taken", got, b.inFlight)
	}
	// Level-triggered: not read, reported again, by a new epoll wait.
	if n, err := b.Wait(ready, time.Second); n != 1 || err != nil || ready[0] != 1 {
		t.Fatalf("wait after pipe 1 was reported and not read: %v %v, %v", n, ready[:n], err)
	}
	if got := submitted(); got != 2 {
		t.Fatalf("%d epoll waits submitted, want a second one", got)
	}
}

// TestEpollWaitLeftovers: an epoll wait stores up to the ready slice it
// was submitted with; when a later Wait's slice is shorter, the events
// left over are reported by the next Waits with no system call, except
// those whose registration was removed meanwhile. The four registrations
// are one pipe's read end and three duplicates of it, so that one write
// makes them all ready at once: the kernel stores the events when the set
// first turns ready.
func TestEpollWaitLeftovers(t *testing.T) {
	b, pipes := epollPipes(t, 1, pipebench.Options{Pipes: 4})
	fds := []int{pipes[0][0]}
	for tag := int32(1); tag < 4; tag++ {
		fd, err := unix.FcntlInt(uintptr(pipes[0][0]), unix.F_DUPFD_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { unix.Close(fd) })
		if err := b.Add(fd, tag); err != nil {
			t.Fatal(err)
		}
		fds = append(fds, fd)
	}
	ready := make([]int32, 4)
	if n, err := b.Wait(ready, 0); n != 0 || err != nil {
		t.Fatalf("nothing written: %d, %v", n, err)
	}
	write1(t, pipes[0][1])
	n, err := b.Wait(ready[:1], time.Second)
	if n != 1 || err != nil {
		t.Fatalf("four registrations ready, room for one: %d, %v", n, err)
	}
	if b.end-b.next != 3 {
		t.Fatalf("%d events left over, want 3", b.end-b.next)
	}
	seen := map[int32]bool{ready[0]: true}
	gone := (ready[0] + 1) % 4 // removed before it can be reported
	if err := b.Remove(fds[gone], gone); err != nil {
		t.Fatal(err)
	}
	sys := b.WaitSyscalls()
	n, err = b.Wait(ready, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for _, tag := range ready[:n] {
		if tag == gone || seen[tag] {
			t.Errorf("leftovers reported tag %d (removed %d, reported before %v)", tag, gone, seen)
		}
		seen[tag] = true
	}
	if n != 2 || b.WaitSyscalls() != sys {
		t.Errorf("the leftovers: %d tags %v with %d system calls, want the 2 still registered with none", n, ready[:n], b.WaitSyscalls()-sys)
	}
}

// TestEpollWaitRefused: on a kernel without IORING_OP_EPOLL_WAIT (played by
// a probe that reports it unsupported), Check refuses uring-epoll in one
// line naming the backend, the operation and the release that added it,
// as a ConfigError naming Backend alone (the command: -b, exit status 2);
// Open refuses with an errors.ErrUnsupported, which tests skip on.
func TestEpollWaitRefused(t *testing.T) {
	skipWithoutRing(t)
	realRegister := registerCall
	defer func() { registerCall = realRegister; probed.Clear() }()
	registerCall = func(fd int, op uintptr, arg unsafe.Pointer, nr uintptr) unix.Errno {
		e := realRegister(fd, op, arg, nr)
		if op == registerProbe && e == 0 {
			(*probe)(arg).ops[opEpollWait].flags &^= probeOpSupported
		}
		return e
	}
	probed.Clear()
	for _, f := range []*pipebench.Factory{&EpollFactory, lookup(t, "uring-epoll-notaskrunflag")} {
		cerr := f.Check(&pipebench.Config{}, flags)
		msg := checkRefusal(t, cerr, "Backend")
		for _, w := range []string{"-b " + f.Name + ": ", "IORING_OP_EPOLL_WAIT", "Linux 6.15", kernelRelease(), "-b epoll"} {
			if !strings.Contains(msg, w) {
				t.Errorf("%q does not say %q", msg, w)
			}
		}
		openRefused(t, f, pipebench.Options{Pipes: 4, MaxFD: 64}, "Linux 6.15")
	}
}
