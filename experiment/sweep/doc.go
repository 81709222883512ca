// Package sweep runs pipebench over a grid of settings (backends x pipes x
// tokens in flight, and writers and readers when asked), one fresh run per
// point, and turns the runs into data: points with their median evts/sec,
// the runs that could not happen and why, progress events as the points
// run, and where the curves cross (FindCrossings: every pair of backends,
// and of tokens-in-flight values, by stats.Crossings), with, when asked,
// points added inside the crossings' brackets until each is located to a
// factor (Options.Refine). Its text is its own: the points laid out as a
// table (rows = pipes, columns = backends, ratio columns such as
// epoll/poll) with where the curves cross, the skipped points and why (Doc,
// the sweep's record: text.go, table.go, crosstext.go), and the progress
// shown as the points run (Bar); its subpackage plot draws it.
//
// An open-loop sweep (Grid.Rates, -rate) offers each point a fixed load
// through a paced writer instead: its rates are tokens per second, or
// shares of each configuration's saturation, measured first by an
// unbounded writer (load.go); its text is a row per backend and rate
// (LoadTable: received rate, CPU per event, idle, involuntary context
// switches per second, latency; loadtext.go).
//
// It also reads reference tables (the seeds' published figures, kept as CSV
// under testdata/) so that a plot can set today's curves beside them.
//
// The package knows no backend: the command builds one pipebench.Config per
// point and hands them over as Jobs.
//
// Imports: pipebench, pipebench/summary, experiment/record,
// experiment/text, stats and internal/rounds, as imports_test.go at the
// module's root allows (the table in docs/contributing.md shows the rules).
package sweep
