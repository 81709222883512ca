package herd

import (
	"fmt"
	"runtime"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/internal/child"
	"github.com/pipebench/pipebench/internal/fdlimit"
)

// A waiter process is this binary started again as a child
// (internal/child) in role waiterRole. Its configuration is a waiterSpec;
// its descriptors come in order: the shared counts, its stop eventfd, the
// credit pipe's write end, then every pipe's read end. They travel as
// SCM_RIGHTS, the same open files, so the same pipes and wait queues.
const waiterRole = "herd waiter"

func init() { child.Register(child.Role{Name: waiterRole, Serve: waiterProcessMain}) }

type waiterSpec struct {
	Index     int           `json:"index"`
	Waiters   int           `json:"waiters"`
	Pipes     int           `json:"pipes"`
	Exclusive bool          `json:"exclusive"`
	Timeout   time.Duration `json:"timeout_ns"`
}

// The first descriptors a waiter process receives, before the pipes.
const (
	countsAt = iota
	stopAt
	creditAt
	ownFDs
)

func waiterProcessMain(ctl *child.Conn) error {
	runtime.LockOSThread()
	var s waiterSpec
	if err := ctl.Config(&s); err != nil {
		return err
	}
	if s.Waiters < 1 || s.Index < 0 || s.Index >= s.Waiters || s.Pipes < 1 {
		return fmt.Errorf("bad waiter spec %+v", s)
	}
	if _, err := fdlimit.RaiseFileLimit(); err != nil {
		return err
	}
	own, err := ctl.RecvFDs(ownFDs)
	if err != nil {
		return err
	}
	b, err := mapSharedCounts(own[countsAt], s.Waiters)
	if err != nil {
		return err
	}
	pipes, err := ctl.RecvFDs(s.Pipes)
	if err != nil {
		return err
	}
	rfds := make([]int32, len(pipes))
	for i, fd := range pipes {
		rfds[i] = int32(fd)
	}
	w, err := newWaiter(rfds, int32(own[stopAt]), int32(own[creditAt]), s.Exclusive, s.Timeout, &b.waiters[s.Index])
	if err != nil {
		return err
	}
	defer w.close()
	return w.serve(unix.Getpid())
}

// startWaiterProcess starts waiter process spec.Index and hands it its
// descriptors. GOMAXPROCS=2: a waiter is one locked thread, but with a P
// to spare the Go scheduler leaves its P alone while it sleeps in
// epoll_wait, instead of handing it off (and waking another thread) after
// 20µs.
func startWaiterProcess(spec waiterSpec, counts int, stop, credit int32, rfds []int) (*child.Process, error) {
	p, err := child.Start(waiterRole, spec, "GOMAXPROCS=2")
	if err != nil {
		return nil, fmt.Errorf("waiter process %d: %w", spec.Index, err)
	}
	err = p.SendFDs([]int{countsAt: counts, stopAt: int(stop), creditAt: int(credit)})
	if err == nil {
		err = p.SendFDs(rfds)
	}
	if err != nil {
		p.Kill()
		p.Close(time.Second)
		return nil, err
	}
	return p, nil
}
