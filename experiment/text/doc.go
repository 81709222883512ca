// Package text is how every pipebench output writes a number and lays out
// a table, in one style: a duration from nanoseconds (Nanos), a ratio to
// four significant digits (Ratio), a figure with k or M (Num), a count of
// things (Plural); a table in right- or left-aligned columns, as text or
// markdown (Table); prose wrapped to a width (Wrap); and a Printer that
// keeps the first write error, so that a table is written without checking
// every line. The experiments (experiment/...) and the plain run's report
// (experiment/report) write their text with it.
//
// Imports: stats (RoundSig), as imports_test.go at the module's root
// allows (the table in docs/contributing.md shows the rules).
package text
