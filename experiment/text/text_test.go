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
		{"Num", Num, 6.25e-6, "0.00000625"},
		{"Num", Num, math.NaN(), "-"},
		{"Ratio", Ratio, 1.00249, "1.002"},
		{"Ratio", Ratio, 0.09437, "0.09437"},
		{"Ratio", Ratio, 5.4661e-05, "0.00005466"},
		{"Ratio", Ratio, 2e-05, "0.00002"},
		{"Ratio", Ratio, 6140.3, "6140"},
		{"Ratio", Ratio, 11380.4, "11380"},
		{"Ratio", Ratio, math.Inf(1), "-"},
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
	// A list longer than a line is broken after a comma.
	got = WrapIndent("-b poll,select,epoll,epoll-et -n 10", 16, "", "  ")
	want = []string{"-b poll,select,", "  epoll,epoll-et", "  -n 10"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("WrapIndent of a long list: %q, want %q", got, want)
	}
}

// TestLabelled: a summary's line, its value wrapped at Width under its
// own column; a label as wide as the column keeps a space after it.
func TestLabelled(t *testing.T) {
	got := Labelled("machine", strings.Repeat("word ", 30))
	if len(got) < 2 || !strings.HasPrefix(got[0], "machine        word") || !strings.HasPrefix(got[1], strings.Repeat(" ", LabelWidth)+"word") {
		t.Fatalf("Labelled: %q", got)
	}
	for _, l := range got {
		if len(l) > Width {
			t.Errorf("line of %d columns: %q", len(l), l)
		}
	}
	if got := Labelled("idle entries/evt", "0.7"); got[0] != "idle entries/evt 0.7" {
		t.Errorf("a long label: %q", got)
	}
}

// TestWriteWidth: a table wider than the width is cut into blocks of
// columns, each beginning with the key column; one that fits is whole.
func TestWriteWidth(t *testing.T) {
	tb := &Table{Head: []string{"pipes", "aaaa", "bbbb", "cccc"}, Rows: [][]string{{"10", "1", "2", "3"}}, Right: []bool{true, true, true, true}}
	var b strings.Builder
	p := &Printer{W: &b}
	tb.WriteWidth(p, 18, 1)
	want := "pipes  aaaa  bbbb\n   10     1     2\n\npipes  cccc\n   10     3\n"
	if b.String() != want {
		t.Errorf("cut table:\n%q\nwant\n%q", b.String(), want)
	}
	b.Reset()
	tb.WriteWidth(p, 80, 1)
	if strings.Count(b.String(), "\n") != 2 {
		t.Errorf("a table that fits is cut:\n%s", b.String())
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
