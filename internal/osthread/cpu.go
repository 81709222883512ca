package osthread

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Pin binds the calling OS thread (locked by the caller) to cpu.
func Pin(cpu int) error {
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return fmt.Errorf("pin thread to CPU %d: %w", cpu, err)
	}
	return nil
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
