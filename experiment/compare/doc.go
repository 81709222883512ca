// Package compare is pipebench compare: records read back (ReadRecord:
// the runs, sweeps, herds and timeouts of any pipebench that wrote format
// versions record.OldestVersion to record.Version), their configurations
// matched across records, or across the values of one flag inside one
// record (-by), and each figure compared side by side: its median and
// interval in each column, the change against the first column and its
// interval, a verdict (stats/compare: the U test over runs, Welch's t over
// sittings, the floor, the Benjamini-Hochberg adjustment), the sittings and
// runs a change needs, what differs between the records' machines and
// flags. New makes the Comparison; Write lays it out as text (at most 100
// columns), markdown, CSV or JSON; Figure draws sweep records side by side
// (experiment/sweep/plot); Check answers -check for git bisect run. Of
// sweep records side against side, it says whether each crossing of two
// curves moved (Crossings).
//
// Imports: experiment/record, experiment/text, experiment/sweep and its
// plot, stats (the crossings), stats/compare, pipebench and
// internal/envinfo, as imports_test.go
// at the module's root allows (the table in docs/contributing.md shows the
// rules).
package compare
