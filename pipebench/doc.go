// Package pipebench is the harness of the pipebench suite: it makes N pipes,
// keeps L tokens in flight through them, asks a Mechanism which read ends
// are ready, reads them, forwards the tokens (itself, from a writer thread or
// from a writer process) and counts everything it does, so that select, poll,
// epoll and later mechanisms are measured on exactly the same workload. A
// run may have several reader threads, each with a Mechanism instance over
// its own part of the pipes, and several writer threads, each owning its
// own pipes and tokens (Config.Readers, Config.Writers).
//
// A backend is one of two small tables (backend.go): a Mechanism answers
// the readiness call; a Loop replaces the reader's loop through the
// Surface (driver.go) the reader's loop is built on too. Run is the whole
// benchmark. Beside them: the reader, the writers and the writer process,
// the descriptor limits, the counters, the Result (built once, at the end
// of a run, and checked: Result.CheckValid holds the invariants every
// format relies on), one set of error types (ConfigError, LimitError,
// TokenLossError, StallError; the first two a Message naming the Config
// settings at fault, which a caller may write by its own names for them),
// and Bypass, the Loop that makes no readiness call at all. The hot loop
// only increments counters: no allocation, lock, channel operation or
// clock read per event.
//
// Imports: as imports_test.go at the module's root allows (the table in
// docs/contributing.md shows the rules).
package pipebench
