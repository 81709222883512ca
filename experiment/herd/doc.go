// Package herd measures the thundering herd of epoll: K waiters, each with
// an epoll backend of its own (epoll.OpenWaiter, with
// epoll.Waiter.Exclusive for EPOLLEXCLUSIVE) over the same pipes' read ends, and
// a writer (internal/tokens' Writer, the harness's) that keeps L tokens in
// flight. Every token makes a pipe readable; without
// EPOLLEXCLUSIVE the kernel wakes every waiter whose epoll set holds that
// pipe, and all but one find nothing to read. With EPOLLEXCLUSIVE (Linux
// 4.5) it wakes one (or a few). A run measures both settings, one after the
// other on a fresh setup, and returns the counts as data: waits that
// returned and those that found nothing (wasted), wasted reads, tokens, the
// waiters' CPU time and context switches (a woken waiter that finds nothing
// ready goes back to sleep inside the kernel: that part of the herd shows
// only as context switches and system time), and the token accounting.
// Its text is its own (text.go): the settings side by side, one figure a
// line, with their off/on ratios (Doc, the herd's record), and the lines
// printed while it runs (Progress).
//
// Prepare is the herd's one rule book: it checks a Config (settings only)
// and that it fits the descriptor and epoll watch limits, before anything
// is made, refusing with a pipebench.ConfigError or LimitError written by
// the caller's pipebench.Names; the Prepared herd's Run measures it, told
// the caller's Observers apart.
//
// Waiters are OS threads of this process or, with Mode Processes, this
// binary started again as a child (internal/child: the binary calls
// child.Serve first thing in main or TestMain). Both run the same loop and
// publish their counts in shared memory (a memfd), so that the
// measuring process reads them the same way whoever the waiters are.
//
// Imports: pipebench, epoll, experiment/record, experiment/text, stats and
// internal helpers, as imports_test.go at the module's root allows (the
// table in docs/contributing.md shows the rules).
package herd
