package text

import (
	"math"
	"strings"
	"testing"
)

// TestNumbers: each way of printing a number, on values whose printing is
// known, the edges of its ranges among them.
func TestNumbers(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func(float64) string
		x    float64
		want string
	}{
		{"Nanos", Nanos, 953, "953ns"},
		{"Nanos", Nanos, 999.6e3, "1ms"},
		{"Nanos", Nanos, 1.0234e6, "1.02ms"},
		{"Nanos", Nanos, 2.5e9, "2.5s"},
		{"Nanos", Nanos, -1500, "-1.5µs"},
		{"Num", Num, 0, "0"},
		{"Num", Num, 1234.5, "1234"},
		{"Num", Num, 20000, "20k"},
		{"Num", Num, 999.95e3, "1M"},
		{"Num", Num, 0.0013579, "0.00136"},
		{"Num", Num, 6.25e-6, "6.25e-06"},
		{"Num", Num, math.NaN(), "-"},
		{"Ratio", Ratio, 1.00249, "1.002"},
		{"G6", G6, 5.000476, "5.00048"},
		{"Quantile", Quantile, 1230, "1230"},
		{"Whole", Whole, 31538.6, "31539"},
	} {
		if got := tc.f(tc.x); got != tc.want {
			t.Errorf("%s(%v) = %q, want %q", tc.name, tc.x, got, tc.want)
		}
	}
	if Plural(1, "run") != "1 run" || Plural(0, "run") != "0 runs" {
		t.Errorf("Plural: %q, %q", Plural(1, "run"), Plural(0, "run"))
	}
}

// TestTable: columns as wide as their widest cell (in runes), right- or
// left-aligned, no trailing spaces; markdown marks the right-aligned.
func TestTable(t *testing.T) {
	tb := &Table{Head: []string{"metric", "A", "note"}, Rows: [][]string{{"evts/sec", "1.2k ±3%", "µs"}, {"x", "5", ""}},
		Right: []bool{false, true, false}}
	var b strings.Builder
	p := &Printer{W: &b}
	tb.Write(p, false)
	want := "metric           A  note\nevts/sec  1.2k ±3%  µs\nx                5\n"
	if b.String() != want || p.Err() != nil {
		t.Errorf("text table:\n%q\nwant\n%q (%v)", b.String(), want, p.Err())
	}
	b.Reset()
	tb.Write(p, true)
	want = "| metric | A | note |\n|---|---:|---|\n| evts/sec | 1.2k ±3% | µs |\n| x | 5 |  |\n"
	if b.String() != want {
		t.Errorf("markdown table:\n%q\nwant\n%q", b.String(), want)
	}
}

// TestWrap: lines of at most the width, broken at spaces, the later ones
// indented by four.
func TestWrap(t *testing.T) {
	got := Wrap("one two three four five", 9)
	want := []string{"one two", "    three", "    four", "    five"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Wrap: %q, want %q", got, want)
	}
}

// errWriter fails every write.
type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, errFull }

var errFull = &failure{"disk full"}

type failure struct{ s string }

func (f *failure) Error() string { return f.s }

// TestPrinterKeepsTheFirstError: after a failed write the printer writes
// nothing more and keeps that error.
func TestPrinterKeepsTheFirstError(t *testing.T) {
	p := &Printer{W: errWriter{}}
	p.Printf("a")
	p.Keep(&failure{"later"})
	if p.Err() != errFull {
		t.Errorf("Err() = %v, want the first write's", p.Err())
	}
}
