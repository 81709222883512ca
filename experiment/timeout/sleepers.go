package timeout

import (
	"fmt"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/internal/waitcall"
)

// A sleeper waits on a pipe that never becomes readable until its timeout
// runs out. It returns unix.EINTR when a signal cut the wait short (that
// sample is discarded) and an error when the call did anything but time
// out.
type sleeper interface {
	sleep(d time.Duration) error
	close()
}

// idle is the read end of a pipe nobody writes: every call watches it, so
// that each call has a real descriptor set and only its timeout ends it.
type idle struct{ r, w int }

func newIdle() (idle, error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		return idle{}, fmt.Errorf("make idle pipe: %w", err)
	}
	return idle{p[0], p[1]}, nil
}

func (i idle) close() { unix.Close(i.r); unix.Close(i.w) }

// newSleeper opens what mechanism m needs around the idle pipe.
func newSleeper(m Mechanism, in idle) (sleeper, error) {
	switch m {
	case EpollWait, EpollPwait2:
		ep, err := newEpoll(in.r)
		if err != nil {
			return nil, err
		}
		if m == EpollWait {
			return &epollWait{ep}, nil
		}
		return &epollPwait2{ep}, nil
	case Ppoll:
		return &ppoll{fds: []unix.PollFd{{Fd: int32(in.r), Events: unix.POLLIN}}}, nil
	case Pselect6:
		return &pselect{fd: in.r}, nil
	case Timerfd:
		return newTimerfdSleeper(in.r)
	}
	return nil, fmt.Errorf("no sleeper for %v", m)
}

// epoll is an epoll set over some descriptors.
type epoll struct {
	fd     int
	events []unix.EpollEvent
}

func newEpoll(fds ...int) (epoll, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return epoll{}, fmt.Errorf("epoll_create1: %w", err)
	}
	for _, fd := range fds {
		ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)}
		if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
			unix.Close(epfd)
			return epoll{}, fmt.Errorf("epoll_ctl add fd %d: %w", fd, err)
		}
	}
	return epoll{fd: epfd, events: make([]unix.EpollEvent, len(fds))}, nil
}

func (e epoll) close() { unix.Close(e.fd) }

// timedOut turns a call's result into the sleeper's: nil for a timeout.
func timedOut(what string, n int, err error) error {
	switch {
	case err == unix.EINTR:
		return unix.EINTR
	case err != nil:
		return fmt.Errorf("%s: %w", what, err)
	case n != 0:
		return fmt.Errorf("%s reported %d ready descriptors on a pipe nobody writes", what, n)
	}
	return nil
}

type epollWait struct{ epoll }

func (e *epollWait) sleep(d time.Duration) error {
	n, err := rawWait(unix.SYS_EPOLL_PWAIT, uintptr(e.fd), uintptr(unsafe.Pointer(&e.events[0])),
		uintptr(len(e.events)), uintptr(waitcall.Millis(d)), 0)
	return timedOut("epoll_wait", n, err)
}

type epollPwait2 struct{ epoll }

func (e *epollPwait2) sleep(d time.Duration) error {
	ts := unix.NsecToTimespec(int64(d))
	// x/sys has the number (441 on amd64 and arm64) but no wrapper. A nil
	// sigmask leaves the signal mask alone.
	n, err := rawWait(unix.SYS_EPOLL_PWAIT2, uintptr(e.fd), uintptr(unsafe.Pointer(&e.events[0])),
		uintptr(len(e.events)), uintptr(unsafe.Pointer(&ts)), 0)
	return timedOut("epoll_pwait2", n, err)
}

type ppoll struct{ fds []unix.PollFd }

func (p *ppoll) sleep(d time.Duration) error {
	ts := unix.NsecToTimespec(int64(d))
	n, err := rawWait(unix.SYS_PPOLL, uintptr(unsafe.Pointer(&p.fds[0])), uintptr(len(p.fds)),
		uintptr(unsafe.Pointer(&ts)), 0, 0)
	return timedOut("ppoll", n, err)
}

func (p *ppoll) close() {}

type pselect struct{ fd int }

func (p *pselect) sleep(d time.Duration) error {
	// pselect6 rewrites both the set and (on Linux) the timeout.
	var set unix.FdSet
	set.Set(p.fd)
	ts := unix.NsecToTimespec(int64(d))
	n, err := rawWait(unix.SYS_PSELECT6, uintptr(p.fd+1), uintptr(unsafe.Pointer(&set)), 0, 0,
		uintptr(unsafe.Pointer(&ts)))
	return timedOut("pselect6", n, err)
}

func (p *pselect) close() {}

// timerfdSleeper arms a timerfd for the request and waits for it in an
// epoll set that also holds the idle pipe. Its epoll_wait gets a generous
// timeout of its own, so that a timer that never fires is an error, not a
// hang.
type timerfdSleeper struct {
	epoll
	tfd int
	buf [8]byte
}

func newTimerfdSleeper(pipe int) (*timerfdSleeper, error) {
	tfd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_CLOEXEC|unix.TFD_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("timerfd_create: %w", err)
	}
	ep, err := newEpoll(pipe, tfd)
	if err != nil {
		unix.Close(tfd)
		return nil, err
	}
	return &timerfdSleeper{epoll: ep, tfd: tfd}, nil
}

func (t *timerfdSleeper) sleep(d time.Duration) error {
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	if err := unix.TimerfdSettime(t.tfd, 0, &spec, nil); err != nil {
		return fmt.Errorf("timerfd_settime: %w", err)
	}
	n, err := rawWait(unix.SYS_EPOLL_PWAIT, uintptr(t.fd), uintptr(unsafe.Pointer(&t.events[0])),
		uintptr(len(t.events)), uintptr(waitcall.Millis(d)+1000), 0)
	switch {
	case err == unix.EINTR:
		// The timer stays armed; read its expiry below or disarm it.
		t.disarm()
		return unix.EINTR
	case err != nil:
		return fmt.Errorf("epoll_wait on the timerfd: %w", err)
	case n != 1 || int(t.events[0].Fd) != t.tfd:
		return fmt.Errorf("epoll_wait on the timerfd returned %d events, want the timerfd alone", n)
	}
	// Clear the expiry so that the next sleep starts from an unready timerfd.
	if _, err := unix.Read(t.tfd, t.buf[:]); err != nil {
		return fmt.Errorf("read the timerfd: %w", err)
	}
	return nil
}

// disarm stops the timer and clears any expiry it counted.
func (t *timerfdSleeper) disarm() {
	_ = unix.TimerfdSettime(t.tfd, 0, &unix.ItimerSpec{}, nil)
	_, _ = unix.Read(t.tfd, t.buf[:])
}

func (t *timerfdSleeper) close() {
	t.epoll.close()
	unix.Close(t.tfd)
}

// rawWait makes one sleeping system call as the harness's wait calls are
// made (the Backend contract): raw, so that the measuring thread keeps its
// P and the time it takes to wake is the kernel's, not the Go scheduler's
// giving it a P back. A signal ends it with EINTR; the sample is then
// discarded.
func rawWait(trap, a1, a2, a3, a4, a5 uintptr) (int, error) {
	r, _, e := syscall.RawSyscall6(trap, a1, a2, a3, a4, a5, 0)
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}
