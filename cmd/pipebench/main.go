// Command pipebench measures how Linux tells a program that a descriptor is
// ready (select, poll, epoll, io_uring, the Go netpoller) on a token-passing
// workload across thousands of pipes, and prints epoll_pipe_bench's familiar
// lines and a summary.
//
//	pipebench -n 10000 -l 10
//
// Run pipebench -h for the flags; docs/output.md explains the output. The
// command holds the flags, the subcommands (compare, sweep, herd, timeout,
// seeds, top, show) and the one backend table; it calls the packages and
// writes what they return.
//
// containermaxprocs=0 keeps the runtime from holding two cgroup files open
// for the whole run (Go 1.25+): at -n 9996 in one process every descriptor
// counts. GOMAXPROCS is then the CPU count unless set in the environment.
//
// Imports: as imports_test.go at the module's root allows (the table in
// docs/contributing.md shows the rules). backends.go is the one place that knows
// every backend.
//
//go:debug containermaxprocs=0
package main

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/pipebench/pipebench/internal/child"
)

func main() {
	// This binary is also its own children (internal/child): the writer
	// process and the herd's waiter processes.
	child.Serve()
	stop := make(chan struct{})
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		<-sig
		close(stop)
		// A second signal ends the process the ordinary way.
		signal.Stop(sig)
	}()
	os.Exit(command(os.Args[1:], os.Stdout, os.Stderr, stop))
}
