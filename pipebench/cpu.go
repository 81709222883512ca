package pipebench

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// pinThread binds the calling OS thread (locked by the caller) to cpu.
func pinThread(cpu int) error {
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return fmt.Errorf("pin thread to CPU %d: %w", cpu, err)
	}
	return nil
}

// checkCPUs reports a CPU this process may not run on.
func checkCPUs(cpus []int) error {
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil {
		return fmt.Errorf("read CPU affinity: %w", err)
	}
	for _, c := range cpus {
		if c < 0 || c >= 1024 || !allowed.IsSet(c) {
			var ok []int
			for i := range 1024 {
				if allowed.IsSet(i) {
					ok = append(ok, i)
				}
			}
			return fmt.Errorf("-cpu %d: this process may run on CPUs %v", c, ok)
		}
	}
	return nil
}

// readerCPU and writerCPU are where -cpu puts the two sides, or -1.
func (c *Config) readerCPU() int {
	if len(c.CPUs) == 0 {
		return -1
	}
	return c.CPUs[0]
}

func (c *Config) writerCPU() int {
	if len(c.CPUs) == 0 {
		return -1
	}
	return c.CPUs[len(c.CPUs)-1]
}
