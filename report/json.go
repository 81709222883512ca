package report

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/pipebench/pipebench/pipebench"
)

// JSON writes the whole Document, indented, when the invocation finishes.
type JSON struct{ W io.Writer }

func (j *JSON) Start(*Document) error                  { return nil }
func (j *JSON) Setup(int, pipebench.Setup) error       { return nil }
func (j *JSON) Interval(int, pipebench.Interval) error { return nil }
func (j *JSON) RunDone(*Run) error                     { return nil }

// Finish writes the document.
func (j *JSON) Finish(d *Document) error {
	enc := json.NewEncoder(j.W)
	enc.SetIndent("", "  ")
	if err := enc.Encode(d); err != nil {
		return fmt.Errorf("write json: %w", err)
	}
	return nil
}
