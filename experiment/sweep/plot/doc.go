// Package plot draws a pipebench sweep with gonum.org/v1/plot: evts/sec
// against pipes on log-log axes, one line per backend, a second panel with
// samples per call when that varies across the sweep, and, when a reference
// table is given, the published curves beside ours with every curve divided
// by its own first point, so that shapes compare across machines decades
// apart. An open-loop sweep (-rate) is drawn as a LoadFigure instead:
// latency (p50, p99, p99.9) and CPU per event against the offered load,
// each backend's saturation marked. Figures are built as data (Figure,
// LoadFigure, Series) from a sweep.Result and written as SVG or PNG.
//
// It is the sweep's: it builds on its parent package, experiment/sweep.
//
// Imports: experiment/sweep and stats, as imports_test.go at the module's
// root allows (the table in docs/contributing.md shows the rules).
package plot
