// Package report holds every output format of every pipebench subcommand:
// what people read and what tools parse. A run's Document (the model behind
// the run formats) is written as text (the familiar per-interval lines and a
// summary block), JSON, CSV or the Go benchmark format, through one Writer
// interface so that every format carries the same figures; a sweep's table,
// a herd's settings side by side and a timeout measurement are Docs written
// as text, CSV or JSON, and so are the seeds' claims set beside this
// machine (pipebench seeds); the top tables of profiles and the machine line are
// here too. The numbers come computed (pipebench/summary, stats/profile, the
// experiments' results): this package only lays them out.
//
// Imports: as imports_test.go at the module's root allows (the table in
// docs/contributing.md shows the rules).
package report
