package record

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Formats are the output formats of a Doc.
var Formats = []string{"text", "csv", "json"}

// Doc is what one invocation of a subcommand measured, with its record's
// head: the model behind every format it is written in. Its JSON is the
// value itself; WriteText and WriteCSV lay it out.
type Doc interface {
	WriteText(io.Writer) error
	WriteCSV(io.Writer) error
}

// Write writes d in format, one of Formats.
func Write(w io.Writer, format string, d Doc) error {
	switch format {
	case "text":
		return d.WriteText(w)
	case "csv":
		return d.WriteCSV(w)
	case "json":
		return WriteJSON(w, d)
	}
	return fmt.Errorf("unknown format %q: want %s", format, strings.Join(Formats, ", "))
}

// WriteJSON writes v indented by two spaces, with a final newline: the JSON
// of every pipebench command.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
