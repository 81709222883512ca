// Package fdlimit holds a process's descriptor budget: RaiseFileLimit
// raises the soft RLIMIT_NOFILE to the hard limit, OpenFDs counts the
// descriptors open, GrowTable sizes the kernel's descriptor table at once.
// The harness and the herd plan their runs from Budget before making any
// pipe.
//
// Imports: as imports_test.go at the module's root allows (the table in
// docs/contributing.md shows the rules).
package fdlimit

import (
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// RaiseFileLimit raises the soft RLIMIT_NOFILE to the hard limit and returns
// the limit now in force.
func RaiseFileLimit() (uint64, error) {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		return 0, fmt.Errorf("getrlimit RLIMIT_NOFILE: %w", err)
	}
	if lim.Cur < lim.Max {
		lim.Cur = lim.Max
		if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
			return 0, fmt.Errorf("raise RLIMIT_NOFILE soft limit to %d: %w", lim.Max, err)
		}
	}
	return lim.Cur, nil
}

// Budget is the descriptor preamble of a run: it raises the soft limit to
// the hard one (RaiseFileLimit) and counts the descriptors open (base),
// after making the Go runtime open its own epoll descriptor and eventfd,
// which it does the first time a timer is armed, so that they are counted.
func Budget() (limit uint64, base int, err error) {
	if limit, err = RaiseFileLimit(); err != nil {
		return 0, 0, err
	}
	time.Sleep(time.Nanosecond)
	if base, err = OpenFDs(); err != nil {
		return 0, 0, err
	}
	return limit, base, nil
}

// OpenFDs counts this process's open descriptors.
func OpenFDs() (int, error) {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0, fmt.Errorf("count open descriptors: %w", err)
	}
	// ReadDir's own descriptor is listed while it reads.
	return len(ents) - 1, nil
}

// GrowTable makes the kernel size this process's descriptor table for
// want descriptors at once. Left to grow as pipes are made, the table
// doubles a dozen times, and in a process with more than one thread each
// doubling waits for an RCU grace period: setting up 9996 pipes took about
// 110 ms that way and about 40 ms this way. It is best effort: a failure
// only costs setup time.
func GrowTable(want int) {
	if want <= 64 {
		return
	}
	p := make([]int, 2)
	if err := unix.Pipe2(p, unix.O_CLOEXEC); err != nil {
		return
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	if fd, err := unix.FcntlInt(uintptr(p[0]), unix.F_DUPFD_CLOEXEC, want-1); err == nil {
		unix.Close(fd)
	}
}
