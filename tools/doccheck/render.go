package doccheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/pipebench/pipebench/experiment/record"
	"os"
	"strings"

	"github.com/pipebench/pipebench/experiment/timeout"
	"github.com/pipebench/pipebench/stats/report"
)

// Render re-renders the JSON record at path as the text output of the
// subcommand that wrote it (its "tool").
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
	case "pipebench herd":
		doc = &report.HerdDoc{}
	case "pipebench timeout":
		doc = &report.TimeoutDoc{}
	case "pipebench seeds":
		doc = &report.SeedsDoc{}
	case "pipebench sweep":
		var d report.SweepDoc
		if err := json.Unmarshal(data, &d); err != nil {
			return "", fmt.Errorf("record %s: %w", path, err)
		}
		if doc, err = sweepDoc(&d); err != nil {
			return "", fmt.Errorf("record %s: %w", path, err)
		}
	default:
		return "", fmt.Errorf("record %s: tool %q: want pipebench herd, timeout, seeds or sweep", path, head.Tool)
	}
	if head.Tool == "pipebench timeout" {
		if data, err = timeoutMechanisms(data); err != nil {
			return "", fmt.Errorf("record %s: %w", path, err)
		}
	}
	if head.Tool != "pipebench sweep" {
		if err := json.Unmarshal(data, doc); err != nil {
			return "", fmt.Errorf("record %s: %w", path, err)
		}
	}
	if h, ok := doc.(*report.HerdDoc); ok {
		h.Refigure()
	}
	var out bytes.Buffer
	if err := doc.WriteText(&out); err != nil {
		return "", fmt.Errorf("render %s: %w", path, err)
	}
	return out.String(), nil
}

// sweepDoc lays a sweep's record out again: its table is built from the
// points, with the ratio columns and unit the record names.
func sweepDoc(d *report.SweepDoc) (record.Doc, error) {
	if d.Result == nil {
		return nil, fmt.Errorf("no sweep in the record")
	}
	var ratios []report.Ratio
	if len(d.Ratios) > 0 {
		var err error
		if ratios, err = report.ParseRatios(strings.Join(d.Ratios, ","), d.Grid.Backends); err != nil {
			return nil, fmt.Errorf("ratio columns %q: %w", d.Ratios, err)
		}
	}
	return report.NewSweepDoc(d.Head, d.Result, ratios, d.TableUnit == "evts/ms"), nil
}

// timeoutMechanisms turns the mechanisms of a timeout record's points,
// written by name (timeout.Mechanism's MarshalText), into the numbers
// timeout.Mechanism decodes from: the type has no UnmarshalText.
func timeoutMechanisms(data []byte) ([]byte, error) {
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	points, _ := doc["points"].([]any)
	for _, p := range points {
		pt, ok := p.(map[string]any)
		if !ok {
			continue
		}
		name, ok := pt["mechanism"].(string)
		if !ok {
			continue
		}
		m, err := timeout.ParseMechanism(name)
		if err != nil {
			return nil, err
		}
		pt["mechanism"] = int(m)
	}
	return json.Marshal(doc)
}
