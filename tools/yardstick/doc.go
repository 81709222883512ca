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
// It lives in the tools module (tools/go.mod), apart from the product: the
// product's module never imports it, and users run tools/yardstick/compare.sh
// by that path. results/ holds the tables compare.sh and paired.sh printed,
// kept as records (results/README.md).
package yardstick
