// Package yardstick holds the C programs against which pipebench's own cost
// is measured: c/yardstick.c makes the system calls of pipebench's reader
// loop and writers (epoll_pwait, ppoll, pselect6 or io_uring_enter; read;
// a one-byte write per token or one credit write per readiness call; a
// writer thread or a forked writer process holding the write ends, bounded
// by credits or unbounded) and nothing else, and prints the same
// per-interval lines; c/herd.c and c/timeout.c do the same for the herd
// and timeout experiments (pipebench herd, pipebench timeout), with their
// figures and CSV columns; c/common.h holds what the three share.
// compare.sh runs pipebench and the yardstick alternately over a table of
// backends, writer modes, pipe counts and tokens in flight, and prints the
// ratio of their median evts/sec; compare.sh herd and compare.sh timeout
// (compare-experiments.sh) hold the experiments' figures side by side. The
// package has no Go code besides its tests, which build the programs with
// gcc and check their output, their token accounting and their descriptor
// budgets (never their speed). See README.md.
//
// Imports: nothing of the module's; it is C programs, shell scripts and
// tests that build them.
//
// It stays at the top level, a peer program set beside the command rather
// than Go code the module imports: users run yardstick/compare.sh by that
// path.
package yardstick
