package herd

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Descriptors besides the pipes: the stop pipe, the credit pipe and the
// board in the measuring process; in a waiter process, stdin, stdout,
// stderr, the board, the stop and credit ends, its epoll descriptor, and the
// Go runtime's epoll descriptor and eventfd, with a spare.
const (
	parentExtraFDs = 5 + 2 // and two for fork/exec's error pipe
	childExtraFDs  = 10
)

// LimitError says that a run cannot fit the descriptor limit or the
// kernel's epoll watch limit; it is found before any pipe is made.
type LimitError struct{ Msg string }

func (e *LimitError) Error() string { return e.Msg }

// need returns the peak descriptors of the measuring process and of one
// waiter process.
func need(c *Config, base int) (parent, child int) {
	parent = base + 2*c.Pipes + parentExtraFDs
	if c.Mode == Threads {
		return parent + c.Waiters, 0
	}
	return parent, childExtraFDs + c.Pipes
}

// plan checks that the run fits under limit, base descriptors being open
// already, and under the user's epoll watch limit (watches, 0 if unknown).
func plan(c *Config, base int, limit uint64, watches uint64) error {
	parent, child := need(c, base)
	if worst := max(parent, child); uint64(worst) > limit {
		return &LimitError{fmt.Sprintf("-n %d with -waiters %d (%s) needs %d descriptors in one process, limit is %d (RLIMIT_NOFILE hard limit): use fewer pipes or waiters",
			c.Pipes, c.Waiters, c.Mode, worst, limit)}
	}
	if w := uint64(c.Waiters) * uint64(c.Pipes+1); watches > 0 && w > watches {
		return &LimitError{fmt.Sprintf("-n %d with -waiters %d needs %d epoll registrations, more than fs.epoll.max_user_watches %d: use fewer pipes or waiters",
			c.Pipes, c.Waiters, w, watches)}
	}
	return nil
}

// maxUserWatches reads the kernel's per-user limit of epoll registrations,
// 0 when it cannot be read.
func maxUserWatches() uint64 {
	b, err := os.ReadFile("/proc/sys/fs/epoll/max_user_watches")
	if err != nil {
		return 0
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0
	}
	return n
}
