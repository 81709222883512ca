// Package text is how every pipebench output writes a number and lays out
// a line, in one style, within the width a mail holds (Width, 80): a
// duration from nanoseconds (Nanos), a ratio or a figure of nanoseconds to
// four significant digits and never an exponent (Ratio), a figure with k
// or M (Num), a count of things (Plural); a table in right- or
// left-aligned columns, as text or markdown, cut into blocks of columns
// where wider than the width (Table, WriteWidth); a summary's labelled
// line, wrapped under its value's column (Labelled, Items); prose wrapped
// to a width (Wrap, Fit); and a Printer that keeps the first write error,
// so that a table is written without checking every line. The experiments
// (experiment/...), the plain run's report (experiment/report) and the
// record's closing lines (experiment/record) write their text with it.
//
// Imports: stats (RoundSig), as imports_test.go at the module's root
// allows (the table in docs/contributing.md shows the rules).
package text
