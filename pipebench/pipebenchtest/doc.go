// Package pipebenchtest checks, on real pipes, that a backend keeps the
// contract written on its interface, in the manner of testing/fstest. The
// suite has a part for each of the harness's two tables: a
// pipebench.Mechanism's package calls TestMechanism from its own test, a
// pipebench.Loop's TestLoop; a Mechanism's benchmark calls
// BenchmarkPingPong, so one suite holds them all to the same rules and the
// same yardstick.
//
// Checks that depend on declared features (EdgeTriggered, OneShot,
// RingQueued, the writer modes a backend runs with) adapt to them; both
// parts run the harness (pipebench.Run) in every writer mode the backend
// runs with. None asserts a speed. Timed checks assert only lower bounds,
// with a generous hang guard. Every descriptor the suite makes is closed
// by t.Cleanup.
//
// Imports: as imports_test.go at the module's root allows (the table in
// docs/contributing.md shows the rules).
// Backends import it from their tests.
package pipebenchtest
