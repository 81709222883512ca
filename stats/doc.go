// Package stats turns pipebench's raw counts into the numbers a report shows:
// a description of a sample (Sample: the evts/sec of the measured
// intervals, say; its median, mean, a 95% confidence interval of the mean, a
// noise flag), the median of a figure over an experiment's repetitions
// (Median, MedianOf), a histogram (HdrHistogram, three significant digits)
// that the hot loop fills without allocating (ready descriptors per
// readiness call, write-to-read latency), the per-event and per-second
// ratios, and where two curves cross (Crossings).
//
// The package does no I/O, prints nothing and words nothing: every function
// is pure and every type is plain data, so it is tested on numbers alone.
// What a Sample's reader must be told (too few values, noise) its fields
// say; the experiments' text words it. The statistics come from gonum
// (gonum.org/v1/gonum/stat and gonum.org/v1/gonum/stat/distuv); this
// package only decides what to ask them and what to do with the edge cases
// they leave open (empty and one-element samples, which would otherwise
// produce NaN, which JSON cannot carry).
//
// Imports: nothing of ours, as imports_test.go at the module's root allows
// (the table in docs/contributing.md shows the rules).
package stats
