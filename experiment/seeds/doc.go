// Package seeds sets each claim of the seed documents (the linux-kernel
// posts pipebench is built from) beside this machine: for every claim, the
// experiment behind it at a size that fits here, the seed's figure, the
// figure measured here in the same unit, their ratio and a verdict (holds,
// does not hold, not comparable, with why). It composes the other
// experiments through their packages (pipebench.Run, experiment/sweep,
// experiment/herd, experiment/timeout, internal/profile for -kprofile's
// kernel profiles, hooked to a run as the plain run's are by
// experiment/report) rather than re-implementing them, and returns rows as
// data, which it writes as its own text (text.go: Doc, the reproduction's
// record).
//
// The seeds' figures are compiled in (figures.go), each naming the file
// under testdata/ and the seed's lines it comes from; a test checks them
// against those files. The verdict rule (verdict.go) is pipebench's, stated
// there and in docs/seeds.md: the seeds give no tolerance of their own.
//
// The package knows no backend beyond pipebench.Bypass: the command hands
// it the poll and epoll factories (Options.Backends).
//
// Imports: the other experiments, experiment/report, experiment/record,
// experiment/text, pipebench, pipebench/summary, stats and
// internal/profile, as imports_test.go at the module's root allows (the
// table in docs/contributing.md shows the rules).
package seeds
