package report

import (
	"fmt"
	"io"

	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/pipebench/summary"
)

// Writer is one output format. The command calls Start once, then for each
// run Setup, Interval for every full interval and RunDone, then Finish.
// Formats that stream (text, csv, bench) print as they go; json prints the
// whole document at Finish.
type Writer interface {
	Start(d *Doc) error
	Setup(run int, s pipebench.Setup) error
	Interval(run int, iv pipebench.Interval) error
	RunDone(run *summary.Run) error
	Finish(d *Doc) error
}

// Formats lists the names New takes.
var Formats = []string{"text", "json", "csv", "bench"}

// New returns the writer for format.
func New(format string, w io.Writer) (Writer, error) { return NewVerbose(format, w, false) }

// NewVerbose returns the writer for format; a text one, when verbose,
// writes every figure (-v: Text.Verbose).
func NewVerbose(format string, w io.Writer, verbose bool) (Writer, error) {
	switch format {
	case "text":
		return &Text{W: w, Verbose: verbose}, nil
	case "json":
		return &JSON{W: w}, nil
	case "csv":
		return NewCSV(w), nil
	case "bench":
		return &Bench{W: w}, nil
	}
	return nil, fmt.Errorf("unknown format %q: want text, json, csv or bench", format)
}
