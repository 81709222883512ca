package osthread

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// TestUsageMigrations moves the calling thread from one CPU to another and
// back: the thread's usage must count the moves (se.nr_migrations), and a
// process's must sum its threads'.
func TestUsageMigrations(t *testing.T) {
	cpus, err := AllowedCPUs()
	if err != nil {
		t.Fatal(err)
	}
	if len(cpus) < 2 {
		t.Skipf("one CPU allowed (%v): no migration to make", cpus)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before, err := GetUsage(unix.RUSAGE_THREAD)
	if err != nil {
		t.Fatal(err)
	}
	if before.NoSched {
		t.Skip("this kernel shows no /proc/thread-self/sched or schedstat")
	}
	for _, cpu := range []int{cpus[0], cpus[1], cpus[0]} {
		restore, err := Pin(cpu)
		if err != nil {
			t.Fatal(err)
		}
		defer restore()
	}
	after, err := GetUsage(unix.RUSAGE_THREAD)
	if err != nil {
		t.Fatal(err)
	}
	if d := after.Sub(before); d.Migrations < 2 || d.NoSched || d.RunDelay < 0 {
		t.Errorf("after moving the thread to CPU %d, %d and back: %d migrations, run delay %v, NoSched %v; want 2 or more",
			cpus[0], cpus[1], d.Migrations, d.RunDelay, d.NoSched)
	}
	proc, err := GetUsage(unix.RUSAGE_SELF)
	if err != nil {
		t.Fatal(err)
	}
	if proc.NoSched || proc.Migrations < after.Migrations {
		t.Errorf("the process: %d migrations (NoSched %v), fewer than this thread's %d", proc.Migrations, proc.NoSched, after.Migrations)
	}
}
