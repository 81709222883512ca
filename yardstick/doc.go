// Package yardstick holds the C program against which pipebench's own cost
// is measured: c/yardstick.c makes the system calls of pipebench's reader
// loop (epoll_wait, poll or pselect6, read, and a one-byte write per token or
// one credit write per readiness call) and nothing else, and prints the same
// per-interval lines. compare.sh runs both alternately and prints the ratio
// of their median evts/sec. The package has no Go code besides its test,
// which builds the program with gcc and checks its output and its token
// accounting (never its speed). See README.md.
package yardstick
