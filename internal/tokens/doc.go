// Package tokens holds what moves a token, shared by the harness
// (pipebench) and the herd (experiment/herd): the route a token takes
// (Route, Router), what a token is (Format: one byte, an 8-byte time stamp
// in latency mode, an eventfd increment), the writer loop that keeps tokens
// in flight (Writer: bounded by credit words on a credit pipe, unbounded,
// or open-loop on a schedule fixed in advance, Pace; stopped by a shared
// flag or the stop word), the credit pipe
// itself, the stop flag shared with a writer process, and the raw read(2),
// write(2) and credit-wait calls of the hot loops.
//
// Nothing here allocates, locks or reads a clock per token, latency mode's
// stamps excepted; an open-loop writer reads it once a tick.
//
// Imports: as imports_test.go at the module's root allows (the table in
// docs/contributing.md shows the rules). pipebench re-exports what its API
// names (Route and its constants, LatencyTokenSize), so that Config and the
// JSON stay as they are.
package tokens
