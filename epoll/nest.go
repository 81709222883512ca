package epoll

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// nest is the chain of epoll sets of one backend: levels[0] is the set
// Wait sleeps on, each watches the next (level-triggered, EPOLLIN, in
// whatever variant the backend is), and the last holds the descriptors.
// Without nesting it is one set, both top and bottom.
type nest struct {
	levels []int
	// head receives the one event the top set can report: the next
	// level's readiness.
	head [1]unix.EpollEvent
}

// newNest makes a chain of depth+1 epoll sets. The kernel refuses a set
// more than EP_MAX_NESTS (4) levels below another with ELOOP; the command
// refuses deeper -nest before it gets here.
func newNest(depth int) (nest, error) {
	if depth < 0 {
		return nest{}, fmt.Errorf("epoll: nest depth %d: want 0 or more", depth)
	}
	c := nest{levels: make([]int, 0, depth+1)}
	for i := 0; i <= depth; i++ {
		fd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
		if err != nil {
			return nest{}, errors.Join(fmt.Errorf("epoll_create1 (nest level %d of %d): %w", i, depth, err), c.close())
		}
		c.levels = append(c.levels, fd)
		if i == 0 {
			continue
		}
		ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)}
		if err := unix.EpollCtl(c.levels[i-1], unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
			return nest{}, errors.Join(fmt.Errorf("epoll_ctl add nest level %d of %d to the one above: %w", i, depth, err), c.close())
		}
	}
	return c, nil
}

// bottom is the set the descriptors are registered in.
func (c *nest) bottom() int { return c.levels[len(c.levels)-1] }

// close closes every level, the bottom first, and reports each failure.
func (c *nest) close() error {
	var errs []error
	for i := len(c.levels) - 1; i >= 0; i-- {
		if err := unix.Close(c.levels[i]); err != nil {
			errs = append(errs, fmt.Errorf("close epoll fd (nest level %d): %w", i, err))
		}
	}
	c.levels = nil
	return errors.Join(errs...)
}
