package report

import (
	"fmt"
	"io"
	"strings"
)

// ExperimentFormats are the output formats of the experiment subcommands
// (sweep, herd, timeout).
var ExperimentFormats = []string{"text", "csv", "json"}

// Doc is an experiment's result in the formats it offers besides JSON,
// which is the value itself.
type Doc interface {
	WriteText(io.Writer) error
	WriteCSV(io.Writer) error
}

// WriteDoc writes d in format, one of ExperimentFormats.
func WriteDoc(w io.Writer, format string, d Doc) error {
	switch format {
	case "text":
		return d.WriteText(w)
	case "csv":
		return d.WriteCSV(w)
	case "json":
		return WriteJSON(w, d)
	}
	return fmt.Errorf("unknown format %q: want %s", format, strings.Join(ExperimentFormats, ", "))
}
