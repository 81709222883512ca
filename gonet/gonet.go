// Package gonet is the pipebench backend that hands the read ends to the Go
// runtime's netpoller, the way an idiomatic Go program would: each
// descriptor becomes an *os.File (non-blocking, so the runtime registers it
// with its own edge-triggered epoll) and one goroutine per pipe blocks in a
// read of it, parked by the runtime until the descriptor is readable. There
// is no readiness call of ours at all, so the backend is a pipebench.Loop
// (it replaces the reader's loop, and has no Wait): samples per call does
// not apply.
//
// The read is the one (*os.File).Read makes (internal/poll: read(2), and on
// EAGAIN park on the netpoller and read again), reached through
// SyscallConn so that every read(2) is counted, those that find the pipe
// empty included. The runtime gets a duplicate of each descriptor, which
// this backend closes (declared in Factory.FDsPerPipe): the harness keeps,
// drains and closes the read ends themselves.
//
// Every writer mode works: in self mode each goroutine writes the tokens it
// reads on to the next pipes itself; with a writer thread or process each
// goroutine returns credits in one write per read (there is no readiness
// call to batch them by). Settings about a readiness call or a reader
// thread (-churn, -delay, -cpu) are refused by pipebench.Prepare.
//
// Imports: as imports_test.go at the module's root allows (the table in
// docs/contributing.md shows the rules).
package gonet

import "github.com/pipebench/pipebench/pipebench"

// Factory opens netpoller backends. They hold no descriptor of their own
// but one duplicate per registered pipe.
var Factory = pipebench.Factory{
	Name:       "gonet",
	Summary:    "the Go runtime's netpoller: os.NewFile per pipe, one goroutine blocked in Read on each",
	Features:   pipebench.Goroutines,
	FDs:        0,
	FDsPerPipe: 1,
	OpenLoop:   open,
}
