package report

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/pipebench/summary"
)

// JSON writes the whole Document, indented, when the invocation finishes.
type JSON struct{ W io.Writer }

func (j *JSON) Start(*Document) error                  { return nil }
func (j *JSON) Setup(int, pipebench.Setup) error       { return nil }
func (j *JSON) Interval(int, pipebench.Interval) error { return nil }
func (j *JSON) RunDone(*summary.Run) error             { return nil }

// Finish writes the document.
func (j *JSON) Finish(d *Document) error {
	if err := WriteJSON(j.W, d); err != nil {
		return fmt.Errorf("write json: %w", err)
	}
	return nil
}

// WriteJSON writes v indented by two spaces, with a final newline: the JSON
// of every pipebench command.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
