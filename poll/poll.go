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

// backend keeps its interest set (the array handed to the kernel,
// exactly the registered set, and each entry's tag) in a pipebench.PollSet,
// which it hands to the reader (pipebench.PollWait); index maps a
// descriptor to its position so that Remove can swap the last entry into
// the hole.
type backend struct {
	set   pipebench.PollSet
	index []int32 // index[fd] is fd's position in set.Fds, or -1
	ts    unix.Timespec
	calls uint64 // ppoll calls, for WaitSyscalls
}

func open(o pipebench.Options) (pipebench.Mechanism, error) {
	if o.Pipes < 0 || o.MaxFD < 0 {
		return nil, fmt.Errorf("poll: negative size in options (pipes %d, max fd %d)", o.Pipes, o.MaxFD)
	}
	return &backend{
		set: pipebench.PollSet{
			Fds:  make([]unix.PollFd, 0, o.Pipes),
			Tags: make([]int32, 0, o.Pipes),
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
		return fmt.Errorf("poll add fd %d: already registered with tag %d", fd, b.set.Tags[i])
	}
	s := &b.set
	b.index[fd] = int32(len(s.Fds))
	s.Fds = append(s.Fds, unix.PollFd{Fd: int32(fd), Events: unix.POLLIN})
	s.Tags = append(s.Tags, tag)
	return nil
}

func (b *backend) Remove(fd int, tag int32) error {
	if fd < 0 || fd >= len(b.index) || b.index[fd] < 0 {
		return fmt.Errorf("poll remove fd %d: not registered", fd)
	}
	s := &b.set
	i, last := b.index[fd], len(s.Fds)-1
	s.Fds[i], s.Tags[i] = s.Fds[last], s.Tags[last]
	b.index[s.Fds[i].Fd] = i
	b.index[fd] = -1
	s.Fds, s.Tags = s.Fds[:last], s.Tags[:last]
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
		n, e := waitcall.Split(waitcall.Raw6(unix.SYS_PPOLL, uintptr(unsafe.Pointer(fds)), uintptr(len(b.set.Fds)), uintptr(unsafe.Pointer(ts)), 0, 0, 0))
		switch e {
		case 0:
			return b.set.Ready(ready, n), nil
		case unix.EINTR:
			var ok bool
			if t, ok = waitcall.Interrupted(timeout, &start); !ok {
				return 0, nil
			}
		default:
			return 0, fmt.Errorf("poll %d fds: %w", len(b.set.Fds), e)
		}
	}
}

// args are the arguments of a ppoll call with timeout in nanoseconds and
// no signal mask: the registered set and the timeout (nil to block).
func (b *backend) args(timeout time.Duration) (*unix.PollFd, *unix.Timespec) {
	var fds *unix.PollFd
	if len(b.set.Fds) > 0 {
		fds = &b.set.Fds[0]
	}
	if timeout < 0 {
		return fds, nil
	}
	b.ts = unix.NsecToTimespec(int64(timeout))
	return fds, &b.ts
}

// PollSet is pipebench.PollWait: Wait is always one ppoll on the set.
func (b *backend) PollSet() (*pipebench.PollSet, bool) { return &b.set, true }

func (b *backend) CtlCalls() uint64 { return 0 }

func (b *backend) WaitSyscalls() uint64 { return b.calls }

func (b *backend) Close() error { return nil }
