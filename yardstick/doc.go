// Package yardstick holds the C program against which pipebench's own cost
// is measured: c/yardstick.c makes the system calls of pipebench's reader
// loop and writers (epoll_pwait, ppoll, pselect6 or io_uring_enter; read;
// a one-byte write per token or one credit write per readiness call; a
// writer thread or a forked writer process holding the write ends, bounded
// by credits or unbounded) and nothing else, and prints the same
// per-interval lines. compare.sh runs both alternately over a table of
// backends, writer modes, pipe counts and tokens in flight, and prints the
// ratio of their median evts/sec. The package has no Go code besides its
// test, which builds the program with gcc and checks its output, its token
// accounting and its descriptor budgets (never its speed). See README.md.
//
// Imports: nothing; it is a C program, compare.sh and a test that builds
// both. It stays at the top level, a peer program set beside the command
// rather than Go code the module imports: users run yardstick/compare.sh
// by that path.
package yardstick
