// Package pipebenchtest checks, on real pipes, that a pipebench.Backend keeps
// the contract written on the interface, in the manner of testing/fstest:
// every backend package calls TestBackend from its own test, and
// BenchmarkPingPong from its own benchmark, so one suite holds them all to
// the same rules and the same yardstick.
//
// Checks that depend on declared features (EdgeTriggered, OneShot,
// NoWaitCall, RingQueued, the writer modes a backend runs with) adapt to
// them; every
// backend, a Driver included, also takes harness runs (pipebench.Run) in
// every writer mode it runs with. None asserts a speed. Timed checks assert only lower bounds, with a
// generous hang guard. Every descriptor the suite makes is closed by
// t.Cleanup.
//
// Imports: as imports_test.go at the module's root allows (the table in
// docs/contributing.md shows the rules).
// Backends import it from their tests.
package pipebenchtest
