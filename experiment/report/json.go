package report

import (
	"fmt"
	"io"

	"github.com/pipebench/pipebench/experiment/record"
	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/pipebench/summary"
)

// JSON writes the whole Doc, indented, when the invocation finishes.
type JSON struct{ W io.Writer }

func (j *JSON) Start(*Doc) error                       { return nil }
func (j *JSON) Setup(int, pipebench.Setup) error       { return nil }
func (j *JSON) Interval(int, pipebench.Interval) error { return nil }
func (j *JSON) RunDone(*summary.Run) error             { return nil }

// Finish writes the document.
func (j *JSON) Finish(d *Doc) error {
	if err := record.WriteJSON(j.W, d); err != nil {
		return fmt.Errorf("write json: %w", err)
	}
	return nil
}
