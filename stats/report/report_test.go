package report_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/pipebench/pipebench/internal/golden"
	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/stats/report"
	"github.com/pipebench/pipebench/stats/report/reporttest"
)

// render runs a whole document through format, once its result is known
// to hold its invariants.
func render(t *testing.T, format string, d *report.Document, res *pipebench.Result) []byte {
	t.Helper()
	if err := res.CheckValid(); err != nil {
		t.Fatalf("rendering an invalid result: %v", err)
	}
	var b bytes.Buffer
	w, err := report.New(format, &b)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(d); err != nil {
		t.Fatal(err)
	}
	w.Setup(1, res.Setup)
	for _, iv := range res.Intervals {
		if err := w.Interval(1, iv); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.RunDone(d.AddRun(res, nil)); err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(d); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestFormatsGolden(t *testing.T) {
	for _, f := range report.Formats {
		t.Run(f, func(t *testing.T) {
			golden.Check(t, "fixture."+f, render(t, f, reporttest.FixtureDoc(), reporttest.Fixture()))
		})
	}
}

func TestJSONRoundTrip(t *testing.T) {
	b := render(t, "json", reporttest.FixtureDoc(), reporttest.Fixture())
	var d report.Document
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
}

func TestBenchFormatParses(t *testing.T) {
	b := render(t, "bench", reporttest.FixtureDoc(), reporttest.Fixture())
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
		if v, ok := rec.Value("evts/sec"); !ok || v < 100000 {
			t.Errorf("evts/sec %v %v", v, ok)
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
