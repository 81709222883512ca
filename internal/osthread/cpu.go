package osthread

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Pin binds the calling OS thread (locked by the caller) to cpu. It
// returns a function that gives the thread back the affinity it had, to be
// called before the caller unlocks the thread: a thread that went back to
// the runtime's pool narrowed would narrow whatever runs on it next.
func Pin(cpu int) (restore func() error, err error) {
	var old unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		return nil, fmt.Errorf("read the thread's CPU affinity: %w", err)
	}
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return nil, fmt.Errorf("pin thread to CPU %d: %w", cpu, err)
	}
	return func() error {
		if err := unix.SchedSetaffinity(0, &old); err != nil {
			return fmt.Errorf("give the thread pinned to CPU %d its affinity back: %w", cpu, err)
		}
		return nil
	}, nil
}

// AllowedCPUs lists the CPUs this process may run on (its affinity mask),
// in order.
func AllowedCPUs() ([]int, error) {
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil {
		return nil, fmt.Errorf("read CPU affinity: %w", err)
	}
	var ok []int
	for i := range 1024 {
		if allowed.IsSet(i) {
			ok = append(ok, i)
		}
	}
	return ok, nil
}
