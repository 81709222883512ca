package gonet

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/internal/waitcall"
	"github.com/pipebench/pipebench/pipebench"
)

// backend holds the registered pipes, in the order they were added.
type backend struct {
	pipes []*pipe
	index []int32 // index[fd] is fd's position in pipes, or -1
	ctl   atomic.Uint64
	stop  atomic.Bool
}

func open(o pipebench.Options) (pipebench.Loop, error) {
	if o.Pipes < 0 || o.MaxFD < 0 {
		return nil, fmt.Errorf("gonet: negative size in options (pipes %d, max fd %d)", o.Pipes, o.MaxFD)
	}
	return &backend{
		pipes: make([]*pipe, 0, o.Pipes),
		index: waitcall.Grow[int32](nil, o.MaxFD, -1),
	}, nil
}

// Add hands a duplicate of fd to the runtime: os.NewFile registers a
// non-blocking descriptor with the netpoller (one epoll_ctl, counted).
func (b *backend) Add(fd int, tag int32) error {
	if fd < 0 {
		return fmt.Errorf("gonet add fd %d: negative descriptor", fd)
	}
	b.index = waitcall.Grow(b.index, fd, -1)
	if i := b.index[fd]; i >= 0 {
		return fmt.Errorf("gonet add fd %d: already registered with tag %d", fd, b.pipes[i].tag)
	}
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return fmt.Errorf("gonet add fd %d: %w", fd, err)
	}
	if fl&unix.O_NONBLOCK == 0 {
		return fmt.Errorf("gonet add fd %d: blocking descriptor; os.NewFile hands only non-blocking ones to the netpoller", fd)
	}
	dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("gonet add fd %d: dup: %w", fd, err)
	}
	f := os.NewFile(uintptr(dup), fmt.Sprintf("pipe %d", tag))
	// Only a file the netpoller took can have a deadline.
	if err := f.SetReadDeadline(time.Time{}); err != nil {
		f.Close()
		return fmt.Errorf("gonet add fd %d: the Go runtime cannot poll it: %w", fd, err)
	}
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return fmt.Errorf("gonet add fd %d: %w", fd, err)
	}
	b.index[fd] = int32(len(b.pipes))
	b.pipes = append(b.pipes, &pipe{tag: tag, fd: fd, file: f, rc: rc})
	b.ctl.Add(1)
	return nil
}

// Remove closes fd's duplicate, which takes it out of the netpoller (one
// epoll_ctl, counted). It must not be called while Run runs.
func (b *backend) Remove(fd int, tag int32) error {
	if fd < 0 || fd >= len(b.index) || b.index[fd] < 0 {
		return fmt.Errorf("gonet remove fd %d: not registered", fd)
	}
	i, last := b.index[fd], len(b.pipes)-1
	p := b.pipes[i]
	if p.tag != tag {
		return fmt.Errorf("gonet remove fd %d: registered with tag %d, not %d", fd, p.tag, tag)
	}
	b.pipes[i] = b.pipes[last]
	b.index[b.pipes[i].fd] = i
	b.pipes = b.pipes[:last]
	b.index[fd] = -1
	b.ctl.Add(1)
	if err := p.file.Close(); err != nil {
		return fmt.Errorf("gonet remove fd %d: close its duplicate: %w", fd, err)
	}
	return nil
}

// CtlCalls counts the netpoller's registrations and removals (the
// readiness calls are the Go runtime's own, and not counted).
func (b *backend) CtlCalls() uint64 { return b.ctl.Load() }

// Close closes every duplicate (an epoll_ctl each, counted); the
// registered descriptors stay open.
func (b *backend) Close() error {
	var first error
	for _, p := range b.pipes {
		b.ctl.Add(1)
		if err := p.file.Close(); err != nil && first == nil {
			first = fmt.Errorf("gonet close duplicate of fd %d: %w", p.fd, err)
		}
		b.index[p.fd] = -1
	}
	b.pipes = b.pipes[:0]
	return first
}

// Run starts one goroutine per registered pipe, each reading its pipe
// and reporting to a worker of its own, until the run ends.
func (b *backend) Run(s *pipebench.Surface) error {
	ws := s.Workers(len(b.pipes))
	sinks := make([]sink, len(ws))
	for i, w := range ws {
		sinks[i] = w
	}
	return b.serveAll(sinks, s.Done)
}

var _ pipebench.Loop = (*backend)(nil)

// serveAll runs one goroutine per registered pipe, pipe i reporting to
// sinks[i], until done is closed or one of them fails. It then stops them
// all (a read deadline in the past wakes the parked ones) and returns the
// first failure once every one has returned.
func (b *backend) serveAll(sinks []sink, done <-chan struct{}) error {
	b.stop.Store(false)
	errc := make(chan error, 1)
	var wg sync.WaitGroup
	for i, p := range b.pipes {
		wg.Go(func() {
			if err := p.serve(sinks[i], &b.stop); err != nil {
				select {
				case errc <- err:
				default: // another goroutine's failure is already reported
				}
			}
		})
	}
	var err error
	select {
	case <-done:
	case err = <-errc:
	}
	b.stop.Store(true)
	past := time.Unix(1, 0)
	for _, p := range b.pipes {
		p.file.SetReadDeadline(past)
	}
	wg.Wait()
	if err == nil {
		select {
		case err = <-errc:
		default:
		}
	}
	for _, p := range b.pipes {
		p.file.SetReadDeadline(time.Time{})
	}
	return err
}
