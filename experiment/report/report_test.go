package report_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/pipebench/pipebench/experiment/fixture"
	"github.com/pipebench/pipebench/experiment/report"
	"github.com/pipebench/pipebench/internal/golden"
	"github.com/pipebench/pipebench/pipebench"
)

// fixtureDoc is a document with no run yet, configured as the fixture
// ran, once -count times.
func fixtureDoc() *report.Doc {
	cfg := fixture.Config()
	return &report.Doc{Head: fixture.Head(), Config: report.NewConfig(&cfg, 1)}
}

// render writes d, its runs added (each result once known to hold its
// invariants), in format.
func render(t *testing.T, format string, d *report.Doc, runs ...*pipebench.Result) []byte {
	t.Helper()
	for _, res := range runs {
		if err := res.CheckValid(); err != nil {
			t.Fatalf("rendering an invalid result: %v", err)
		}
		d.AddRun(res, nil)
	}
	var b bytes.Buffer
	if err := report.Write(&b, format, d); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// renderVerbose writes d, its runs added, as text with every figure (-v).
func renderVerbose(t *testing.T, d *report.Doc, runs ...*pipebench.Result) []byte {
	t.Helper()
	render(t, "json", d, runs...) // adds the runs
	var b bytes.Buffer
	if err := d.WriteTextVerbose(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestFormatsGolden(t *testing.T) {
	for _, f := range report.Formats {
		t.Run(f, func(t *testing.T) {
			golden.Check(t, "fixture."+f, render(t, f, fixtureDoc(), fixture.Result()))
		})
	}
	t.Run("text -v", func(t *testing.T) {
		golden.Check(t, "fixture-verbose.text", renderVerbose(t, fixtureDoc(), fixture.Result()))
	})
}

// TestJSONRoundTrip: the record reads back as the document it was, every
// run's result valid.
func TestJSONRoundTrip(t *testing.T) {
	b := render(t, "json", fixtureDoc(), fixture.Result())
	var d report.Doc
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	for _, r := range d.Runs {
		if err := r.Result.CheckValid(); err != nil {
			t.Errorf("run %d read back from JSON: %v", r.Index, err)
		}
	}
	again, err := json.MarshalIndent(&d, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(bytes.TrimSpace(b), bytes.TrimSpace(again)) {
		t.Errorf("json does not round-trip:\n%s\n---\n%s", b, again)
	}
	if d.Runs[0].Setup.Writer != pipebench.WriterThread || d.Config.Writer != pipebench.WriterAuto {
		t.Errorf("writer modes lost: %v %v", d.Runs[0].Setup.Writer, d.Config.Writer)
	}
	var text bytes.Buffer
	if err := d.WriteText(&text); err != nil || !bytes.Equal(text.Bytes(), render(t, "text", fixtureDoc(), fixture.Result())) {
		t.Errorf("the record read back writes another text (%v):\n%s", err, text.Bytes())
	}
}

// TestBenchFormatParses: benchstat's own reader (benchfmt) reads the bench
// format: one result per run, its name, its evts/sec, the kernel as a key.
func TestBenchFormatParses(t *testing.T) {
	b := render(t, "bench", fixtureDoc(), fixture.Result())
	r := benchfmt.NewReader(bytes.NewReader(b), "fixture.bench")
	var n int
	for r.Scan() {
		rec, ok := r.Result().(*benchfmt.Result)
		if !ok {
			if e, isErr := r.Result().(*benchfmt.SyntaxError); isErr {
				t.Fatalf("benchfmt: %v", e)
			}
			continue
		}
		n++
		if !strings.Contains(string(rec.Name.Full()), "backend=epoll/pipes=1000") {
			t.Errorf("name %s", rec.Name.Full())
		}
		if v, ok := rec.Value("evts/sec"); !ok || v != 110000 {
			t.Errorf("evts/sec %v %v, want the run's median 110000", v, ok)
		}
		if rec.GetConfig("kernel") != "6.1.0" {
			t.Errorf("kernel config %q", rec.GetConfig("kernel"))
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("%d results, want one per run (1)", n)
	}
}

func TestUnknownFormat(t *testing.T) {
	if _, err := report.New("xml", nil); err == nil || !strings.Contains(err.Error(), "text, json, csv or bench") {
		t.Errorf("got %v", err)
	}
}
