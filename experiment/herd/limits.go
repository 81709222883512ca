package herd

import (
	"os"
	"strconv"
	"strings"

	"github.com/pipebench/pipebench/pipebench"
)

// Descriptors besides the pipes and the waiters' stop eventfds: the credit
// pipe and the shared counts in the measuring process, with two for
// os/exec's error pipe and two more while a waiter process starts (its
// end of the control socket, /dev/null for its stdin); in a waiter process,
// stdin, stdout, stderr, the control socket, the shared counts, its stop
// eventfd, the credit pipe's write end, its epoll descriptor, and the Go
// runtime's epoll descriptor and eventfd, with a spare.
const (
	parentExtraFDs = 3 + 2 + 2
	childExtraFDs  = 11
)

// need returns the peak descriptors of the measuring process and of one
// waiter process: the measuring process holds every pipe and each waiter's
// stop eventfd, and in threads mode each waiter's epoll descriptor too, in
// processes mode each waiter process's control socket and pidfd
// (internal/child).
func need(c *Config, base int) (parent, child int) {
	parent = base + 2*c.Pipes + c.Waiters + parentExtraFDs
	if c.Mode == Threads {
		return parent + c.Waiters, 0
	}
	return parent + 2*c.Waiters, childExtraFDs + c.Pipes
}

// plan checks that the run fits under limit, base descriptors being open
// already, and under the user's epoll watch limit (watches, 0 if unknown):
// a *pipebench.LimitError written by n if not.
func plan(c *Config, base int, limit uint64, watches uint64, n pipebench.Names) error {
	pipes, waiters := pipebench.Set("Pipes", c.Pipes), pipebench.Set("Waiters", c.Waiters)
	parent, child := need(c, base)
	if worst := max(parent, child); uint64(worst) > limit {
		return n.LimitErrorf(worst, limit, "%s with %s (%s) needs %d descriptors in one process, limit is %d (RLIMIT_NOFILE hard limit): use fewer pipes or waiters",
			pipes, waiters, c.Mode, worst, limit)
	}
	if w := uint64(c.Waiters) * uint64(c.Pipes+1); watches > 0 && w > watches {
		return n.LimitErrorf(int(w), watches, "%s with %s needs %d epoll registrations, more than fs.epoll.max_user_watches %d: use fewer pipes or waiters",
			pipes, waiters, w, watches)
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
