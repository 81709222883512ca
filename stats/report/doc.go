// Package report turns pipebench results into what people read: the
// familiar per-interval lines and a summary block. Summarize is pure (numbers
// in, numbers out); the writers do the formatting, so that every format
// carries the same figures.
//
// Imports: pipebench, stats and internal/envinfo.
package report
