// Package report is the plain run's report (pipebench without a
// subcommand): Doc, everything one invocation measured (its runs, each
// with its summary, and the summary across them), and the formats it is
// written in through one Writer interface, so that every format carries
// the same figures: text (the familiar per-interval lines of
// epoll_pipe_bench and a summary block of at most 80 columns, every other
// figure with -v, the summary's warnings worded one a line with the remedy
// and their section of docs/output.md), JSON (the Doc itself: the run's
// record), CSV (a row per interval) and the Go benchmark format (a line
// per run, for benchstat). It also hooks the profiles of a run's window
// (internal/profile) into the run's configuration.
//
// The numbers come computed (pipebench/summary): this package lays them
// out.
//
// Imports: experiment/record, experiment/text, pipebench/summary,
// pipebench, internal/envinfo and internal/profile, as imports_test.go at
// the module's root allows (the table in docs/contributing.md shows the
// rules).
package report
