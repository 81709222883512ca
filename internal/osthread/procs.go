// Package osthread holds what pipebench's measured threads need from the Go
// runtime and the kernel: a P of their own for as long as they are measured
// (LendPs), a CPU to run on (Pin, AllowedCPUs), their CPU time and
// context switches (Usage, from getrusage), and how often the CPUs they may
// run on halted for want of work (Halts, from cpuidle).
//
// A measured thread (the reader, a writer thread, a timeout sleeper) is a
// goroutine locked to its OS thread that sleeps in the kernel with a raw
// system call, as a C program's thread would, so that the Go scheduler
// never hands its P to another thread while it sleeps nor makes it win one
// back when it wakes (with a writer thread that cost 35-40% of evts/sec).
// To the scheduler such a thread is always running; LendPs gives the rest of
// the program the Ps it had before.
//
// Imports: as imports_test.go at the module's root allows (the table in
// docs/contributing.md shows the rules).
package osthread

import (
	"runtime"
	"sync"
)

// The measured threads sleep in the kernel in raw system calls, keeping
// their Ps: to the Go scheduler they are always running. So that the rest
// of the program (the reporter, the signal handler, the garbage collector)
// keeps the Ps it had, each run lends the runtime one more P per measured
// thread for as long as it lasts. Without that, with GOMAXPROCS 2 and a writer thread, the
// reporter could run only when the scheduler preempted a measured thread
// (every 10 ms), and under GOMAXPROCS 1 (a one-CPU container, taskset -c 0)
// the reader and the writer could not both be in their calls at once.
//
// Runs may overlap (tests run them in parallel), so the loans are counted:
// GOMAXPROCS is the value found when the first loan began plus every P
// still lent.
var procs struct {
	sync.Mutex
	base, lent int
}

// LendPs raises GOMAXPROCS by n until release is called (release may be
// called more than once); it returns GOMAXPROCS with the loan.
func LendPs(n int) (gomaxprocs int, release func()) {
	procs.Lock()
	defer procs.Unlock()
	if procs.lent == 0 {
		procs.base = runtime.GOMAXPROCS(0)
	}
	procs.lent += n
	gomaxprocs = procs.base + procs.lent
	runtime.GOMAXPROCS(gomaxprocs)
	var once sync.Once
	return gomaxprocs, func() {
		once.Do(func() {
			procs.Lock()
			defer procs.Unlock()
			procs.lent -= n
			runtime.GOMAXPROCS(procs.base + procs.lent)
		})
	}
}
