// Package pipebench is the harness of the pipebench suite: it makes N pipes,
// keeps L tokens in flight through them, asks a Mechanism which read ends
// are ready, reads them, forwards the tokens (itself, from a writer thread or
// from a writer process) and counts everything it does, so that select, poll,
// epoll and later mechanisms are measured on exactly the same workload. A
// run may have several reader threads, each with a Mechanism instance over
// its own part of the pipes, and several writer threads, each owning its
// own pipes and tokens (Config.Readers, Config.Writers).
//
// A run is its settings, a Config in four groups (config.go): the Workload
// (pipes, tokens, route, descriptor kind, latency, rate), the Readiness
// call (the backend, churn, delay, minimum wait, max events, share,
// nesting), the Threads (writer mode, readers, writers, CPUs) and the
// Window (duration, interval, warm-up, timeouts); its JSON, the record's
// config block, is flat. What the caller hears of a run, and how it ends
// one early, are Observers, given beside the Config. Prepare is the one
// rule book (rules.go): it checks a Config against every rule of a run
// (the settings', the warm-up's, the backend's own Factory.Check, the
// descriptor plan, the CPUs this process may use), once, before anything
// is made, and returns a Prepared run, whose Run runs it without checking
// again; Run(cfg, obs) is the two in one.
//
// A backend is one of two small tables (backend.go): a Mechanism answers
// the readiness call; a Loop replaces the reader's loop through the
// Surface (driver.go) the reader's loop is built on too. Beside them: the
// reader, the writers and the writer process, the descriptor limits, the
// counters, the Result (built once, at the end of a run, and checked:
// Result.CheckValid holds the invariants every format relies on), one set
// of error types, and Bypass, the Loop that makes no readiness call at
// all. The errors (errors.go): a ConfigError is a configuration refused
// before any work, a LimitError one that does not fit this machine's
// limits; each is written once by the caller's Names (the command's are
// its flags: "-l 5000: ...") and lists the Config fields it concerns
// (Fields). A TokenLossError or a StallError fails a run that measured.
// The experiments (experiment/herd, experiment/timeout) refuse their own
// settings with the same two types, written the same way. The hot loop
// only increments counters: no allocation, lock, channel operation or
// clock read per event.
//
// Imports: as imports_test.go at the module's root allows (the table in
// docs/contributing.md shows the rules).
package pipebench
