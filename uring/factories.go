// Package uring is the io_uring backend of pipebench: readiness is learnt
// from the completions of IORING_OP_POLL_ADD requests rather than from a
// wait call that returns a list. It is written over golang.org/x/sys/unix
// (io_uring_setup, io_uring_enter and the mmap'd rings; no cgo, no
// library): ring.go sets a ring up and moves entries through it, abi.go
// holds the kernel's layouts, backend.go the Backend.
//
// Two variants: "uring" arms one multishot poll per descriptor (Linux 5.13)
// that posts a completion per wake-up and is armed again only when the
// kernel ends it; "uring-oneshot" arms single-shot polls, each re-armed by
// the next Wait, one submission per event, the io_uring analogue of
// EPOLLONESHOT. Registration changes are queued and submitted with the next
// wait, in the same system call. When io_uring is disabled or missing, Open
// fails with one line saying why (see avail.go).
//
// Imports: pipebench and internal/waitcall, as every backend; never another
// backend.
package uring

import "github.com/pipebench/pipebench/pipebench"

// Factory opens multishot-poll backends. A multishot poll on a pipe posts a
// completion each time the pipe is written, not while it stays readable, so
// the backend is edge-triggered: the reader reads until a short read.
var Factory = pipebench.Factory{
	Name:     "uring",
	Summary:  "io_uring multishot poll (IORING_POLL_ADD_MULTI, Linux 5.13), re-armed when the kernel ends it",
	Features: pipebench.EdgeTriggered,
	FDs:      1,
	Open:     opener(true),
}

// OneShotFactory opens single-shot-poll backends: each completion disarms
// its descriptor and the next Wait submits a new POLL_ADD for it, in the
// io_uring_enter call that waits.
var OneShotFactory = pipebench.Factory{
	Name:     "uring-oneshot",
	Summary:  "io_uring single-shot poll (IORING_OP_POLL_ADD), re-armed by the next wait",
	Features: pipebench.OneShot,
	FDs:      1,
	Open:     opener(false),
}

// Factories are both variants, for the command's table of backends.
var Factories = []pipebench.Factory{Factory, OneShotFactory}
