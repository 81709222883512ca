// Package poll is the poll(2) backend of pipebench: the whole interest set
// lives in user memory as an array of pollfd and is handed to the kernel on
// every call, which scans all of it. Its cost grows with the number of
// registered descriptors, not with the number that are ready; that is the
// point of measuring it.
//
// Imports: as imports_test.go at the module's root allows (the table in
// docs/contributing.md shows the rules).
package poll

import (
	"fmt"
	"time"
	"unsafe"

	"github.com/pipebench/pipebench/internal/waitcall"
	"github.com/pipebench/pipebench/pipebench"
	"golang.org/x/sys/unix"
)

// Factory opens poll backends. poll changes interest in user memory, so it
// makes no ctl calls and holds no descriptor of its own.
var Factory = pipebench.Factory{
	Name:    "poll",
	Summary: "poll(2): the kernel scans every registered descriptor on every call",
	FDs:     0,
	Open:    open,
}

// backend keeps its interest set in a set: the array handed to the
// kernel, exactly the registered set, and each entry's tag; index maps a
// descriptor to its position so that Remove can swap the last entry into
// the hole.
type backend struct {
	set   set
	index []int32 // index[fd] is fd's position in set.fds, or -1
	ts    unix.Timespec
	calls uint64 // ppoll calls, for WaitSyscalls
}

// set is a ppoll interest set: the array handed to the kernel, all of it,
// and the tag of each entry.
type set struct {
	fds  []unix.PollFd
	tags []int32
}

// ready writes into ready the tags of the entries a ppoll on s that
// returned n found ready, in array order, and returns how many (at most
// len(ready)). n counts the entries with any revents: with only POLLIN
// asked for, POLLIN, POLLHUP (end of file), POLLERR or POLLNVAL, all
// reported, since the caller's read is what tells them apart and a
// POLLNVAL left unreported would make the wait a busy loop.
//
// The scan tests one entry per step and nothing else: the count and the
// room are checked at a ready entry only. At 1000 descriptors it is most
// of the instructions the reader executes per call, so it stays a call
// (noinline): inlined into a loop whose registers were taken (the
// reader's), it kept its index and count on the stack and ran about twice
// the instructions per entry (commit a073331).
//
//go:noinline
func (s *set) ready(ready []int32, n int) int {
	fds, tags := s.fds, s.tags
	k := 0
	if n <= 0 || len(ready) == 0 {
		return 0
	}
	for i, fd := range fds {
		if fd.Revents == 0 {
			continue
		}
		ready[k] = tags[i]
		k++
		n--
		if n == 0 || k == len(ready) {
			break
		}
	}
	return k
}

func open(o pipebench.Options) (pipebench.Mechanism, error) {
	if o.Pipes < 0 || o.MaxFD < 0 {
		return nil, fmt.Errorf("poll: negative size in options (pipes %d, max fd %d)", o.Pipes, o.MaxFD)
	}
	return &backend{
		set: set{
			fds:  make([]unix.PollFd, 0, o.Pipes),
			tags: make([]int32, 0, o.Pipes),
		},
		index: waitcall.Grow[int32](nil, o.MaxFD, -1),
	}, nil
}

func (b *backend) Add(fd int, tag int32) error {
	if fd < 0 {
		return fmt.Errorf("poll add fd %d: negative descriptor", fd)
	}
	b.index = waitcall.Grow(b.index, fd, -1)
	if i := b.index[fd]; i >= 0 {
		return fmt.Errorf("poll add fd %d: already registered with tag %d", fd, b.set.tags[i])
	}
	s := &b.set
	b.index[fd] = int32(len(s.fds))
	s.fds = append(s.fds, unix.PollFd{Fd: int32(fd), Events: unix.POLLIN})
	s.tags = append(s.tags, tag)
	return nil
}

func (b *backend) Remove(fd int, tag int32) error {
	if fd < 0 || fd >= len(b.index) || b.index[fd] < 0 {
		return fmt.Errorf("poll remove fd %d: not registered", fd)
	}
	s := &b.set
	i, last := b.index[fd], len(s.fds)-1
	s.fds[i], s.tags[i] = s.fds[last], s.tags[last]
	b.index[s.fds[i].Fd] = i
	b.index[fd] = -1
	s.fds, s.tags = s.fds[:last], s.tags[:last]
	return nil
}

// Wait makes its ppoll call in place, one frame from its own (the
// Mechanism contract's raw call, waitcall.Raw6), and after EINTR makes it
// again with the time that remains.
func (b *backend) Wait(ready []int32, timeout time.Duration) (int, error) {
	if len(ready) == 0 {
		return 0, waitcall.ErrNoRoom
	}
	var start time.Time
	for t := timeout; ; {
		fds, ts := b.args(t)
		b.calls++
		n, e := waitcall.Split(waitcall.Raw6(unix.SYS_PPOLL, uintptr(unsafe.Pointer(fds)), uintptr(len(b.set.fds)), uintptr(unsafe.Pointer(ts)), 0, 0, 0))
		switch e {
		case 0:
			return b.set.ready(ready, n), nil
		case unix.EINTR:
			var ok bool
			if t, ok = waitcall.Interrupted(timeout, &start); !ok {
				return 0, nil
			}
		default:
			return 0, fmt.Errorf("poll %d fds: %w", len(b.set.fds), e)
		}
	}
}

// args are the arguments of a ppoll call with timeout in nanoseconds and
// no signal mask: the registered set and the timeout (nil to block).
func (b *backend) args(timeout time.Duration) (*unix.PollFd, *unix.Timespec) {
	var fds *unix.PollFd
	if len(b.set.fds) > 0 {
		fds = &b.set.fds[0]
	}
	if timeout < 0 {
		return fds, nil
	}
	b.ts = unix.NsecToTimespec(int64(timeout))
	return fds, &b.ts
}

func (b *backend) CtlCalls() uint64 { return 0 }

func (b *backend) WaitSyscalls() uint64 { return b.calls }

func (b *backend) Close() error { return nil }
