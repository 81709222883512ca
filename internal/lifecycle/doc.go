// Package lifecycle holds the pieces of a measurement's life that the
// harness (pipebench.Run) and the herd (experiment/herd) share rather than
// each keep a copy of: the first failure, which ends the measurement
// (Ending), and the clock of its intervals, which also finds a stall (Clock).
// The descriptor preamble they share is internal/fdlimit's Prepare; the
// child processes they start are internal/child's.
//
// Imports: nothing of ours, as imports_test.go at the module's root allows
// (the table in docs/contributing.md shows the rules).
package lifecycle
