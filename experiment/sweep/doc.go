// Package sweep runs pipebench over a grid of settings (backends x pipes x
// tokens in flight), one fresh run per point, and turns the runs into data:
// points with their median evts/sec, the runs that could not happen and why,
// and a table with rows = pipes, columns = backends and ratio columns such
// as epoll/poll. The same table is written as text, JSON or CSV.
//
// It also reads reference tables (the seeds' published figures, kept as CSV
// under testdata/) so that a plot can set today's curves beside them, and it
// shows a sweep's progress on a terminal or as plain lines.
//
// The package knows no backend: the command builds one pipebench.Config per
// point and hands them over as Jobs.
//
// Imports: pipebench and stats/report (for the summary of a run).
package sweep
