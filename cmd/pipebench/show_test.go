package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShow records a short run, then shows it: each interval's line from
// the record's own figures (epoll_pipe_bench's "%.0f evts/sec %g samples
// per call", C's %g being Go's %.6g), the tokens it sent and received, the command that made it;
// -v shows every line of the default and more.
func TestShow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.json")
	if code, _, stderr := invoke(t, "-n", "10", "-l", "2", "-writer", "self", "-d", "2s", "-i", "500ms", "-o", path); code != exitOK {
		t.Fatalf("the run: exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Runs []struct {
			Intervals []struct {
				EvtsPerSec     float64 `json:"evts_per_sec"`
				SamplesPerCall float64 `json:"samples_per_call"`
			} `json:"intervals"`
			Tokens struct {
				Sent     uint64 `json:"sent"`
				Received uint64 `json:"received"`
			} `json:"tokens"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &rec); err != nil || len(rec.Runs) != 1 || len(rec.Runs[0].Intervals) != 4 {
		t.Fatalf("the record: %v, %+v: want one run of 4 intervals", err, rec)
	}
	code, text, stderr := invoke(t, "show", path)
	if code != exitOK || stderr != "" {
		t.Fatalf("show: exit %d: %s", code, stderr)
	}
	run := rec.Runs[0]
	for _, iv := range run.Intervals {
		line := fmt.Sprintf("%.0f evts/sec %.6g samples per call\n", iv.EvtsPerSec, iv.SamplesPerCall)
		if !strings.Contains(text, line) {
			t.Errorf("no line %q in:\n%s", line, text)
		}
	}
	if tokens := fmt.Sprintf("sent %d  received %d", run.Tokens.Sent, run.Tokens.Received); !strings.Contains(text, tokens) {
		t.Errorf("no %q in:\n%s", tokens, text)
	}
	if !strings.Contains(text, "command        pipebench -n 10 -l 2 -writer self -d 2s -i 500ms -o") {
		t.Errorf("no command line in:\n%s", text)
	}
	code, verbose, stderr := invoke(t, "show", "-v", path)
	if code != exitOK || stderr != "" {
		t.Fatalf("show -v: exit %d: %s", code, stderr)
	}
	if strings.Count(verbose, "\n") <= strings.Count(text, "\n") {
		t.Errorf("-v shows %d lines, the default %d: want more", strings.Count(verbose, "\n"), strings.Count(text, "\n"))
	}
	for _, line := range strings.Split(text, "\n")[:5] {
		if !strings.Contains(verbose, line) {
			t.Errorf("-v lacks the default's line %q", line)
		}
	}
}
