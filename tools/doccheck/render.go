package doccheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/pipebench/pipebench/experiment/herd"
	"github.com/pipebench/pipebench/experiment/record"
	"github.com/pipebench/pipebench/experiment/report"
	"github.com/pipebench/pipebench/experiment/seeds"
	"github.com/pipebench/pipebench/experiment/sweep"
	"github.com/pipebench/pipebench/experiment/timeout"
)

// Render re-renders the JSON record at path as the text output of the
// command that wrote it (its "tool": a run, or a subcommand): the record
// read back as that command's Doc, written as it is, by default (no -v).
func Render(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read record: %w", err)
	}
	if strings.HasSuffix(path, ".txt") {
		// A table kept as its program printed it (tools/yardstick/compare.sh
		// writes no JSON): the block is the file.
		return string(data), nil
	}
	var head struct {
		Tool string `json:"tool"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return "", fmt.Errorf("record %s: %w", path, err)
	}
	var doc record.Doc
	switch head.Tool {
	case "pipebench":
		doc = &report.Doc{}
	case "pipebench herd":
		doc = &herd.Doc{}
	case "pipebench timeout":
		doc = &timeout.Doc{}
	case "pipebench seeds":
		doc = &seeds.Doc{}
	case "pipebench sweep":
		doc = &sweep.Doc{}
	default:
		return "", fmt.Errorf("record %s: tool %q: want pipebench (a run), herd, timeout, seeds or sweep", path, head.Tool)
	}
	if err := json.Unmarshal(data, doc); err != nil {
		return "", fmt.Errorf("record %s: %w", path, err)
	}
	var out bytes.Buffer
	if err := doc.WriteText(&out); err != nil {
		return "", fmt.Errorf("render %s: %w", path, err)
	}
	return out.String(), nil
}
