package sweep

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pipebench/pipebench/stats"
)

func TestParseRef(t *testing.T) {
	good := "# a comment\n# label: pipetest 2002\npipes,epoll,poll()\n10,289160,98469\n100,,16514\n1000,277441,1667\n"
	ref, err := ParseRef(strings.NewReader(good), "fallback")
	if err != nil {
		t.Fatal(err)
	}
	if ref.Label != "pipetest 2002" || ref.XName != "pipes" || len(ref.Series) != 2 {
		t.Fatalf("ref %+v", ref)
	}
	epoll := ref.Series[0]
	if epoll.Name != "epoll" || fmt.Sprint(epoll.X) != "[10 1000]" || fmt.Sprint(epoll.Y) != "[289160 277441]" {
		t.Errorf("an empty cell must leave the point out: %+v", epoll)
	}
	if poll := ref.Series[1]; len(poll.X) != 3 || poll.Y[2] != 1667 {
		t.Errorf("poll() %+v", poll)
	}
	noLabel, err := ParseRef(strings.NewReader("pipes,epoll\n10,1\n"), "fallback")
	if err != nil || noLabel.Label != "fallback" {
		t.Errorf("label %q, %v: want the fallback", noLabel.Label, err)
	}

	bad := []struct{ name, in, err string }{
		{"empty", "", "no header"},
		{"comments only", "# nothing\n", "no header"},
		{"one column", "pipes\n10\n", "line 1: the header has 1 column(s)"},
		{"unnamed column", "pipes,,poll\n10,1,2\n", "line 1: column 2 has no name"},
		{"twice", "pipes,poll,poll\n10,1,2\n", `column "poll" appears twice`},
		{"no rows", "pipes,poll\n", "no rows after the header"},
		{"x not a number", "pipes,poll\nten,5\n", `line 2: pipes "ten": want a number >= 0`},
		{"x negative", "pipes,poll\n-1,5\n", `line 2: pipes "-1": want a number >= 0`},
		{"x not increasing", "pipes,poll\n10,5\n10,4\n", "line 3: pipes 10 after 10: want pipes in increasing order"},
		{"value not a number", "# c\npipes,poll\n10,5\n100,lots\n", `line 4: column "poll": "lots" is not a positive number`},
		{"value zero", "pipes,poll\n10,0\n", `line 2: column "poll": "0" is not a positive number`},
		{"ragged row", "pipes,poll\n10,5,6\n", "wrong number of fields"},
		{"empty column", "pipes,poll,epoll\n10,5,\n", `column "epoll" has no value`},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseRef(strings.NewReader(c.in), "x")
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("error %v, want one containing %q", err, c.err)
			}
		})
	}
}

func TestReadRefNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.csv")
	if err := os.WriteFile(path, []byte("pipes,poll\n10,x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadRef(path)
	if err == nil || !strings.HasPrefix(err.Error(), "reference table "+path+": line 2:") {
		t.Errorf("error %v: want the file and line named", err)
	}
	_, err = ReadRef(filepath.Join(t.TempDir(), "missing.csv"))
	if err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("error %v", err)
	}
}

// The seeds' tables as shipped in testdata/ read as -ref tables, with the
// published figures at their ends.
func TestSeedTables(t *testing.T) {
	cases := []struct {
		file, label, x string
		rows           int
		// series, last x and last value of the last series.
		series       []string
		lastX, lastY float64
	}{
		{"pipetest-2002.csv", "pipetest 2002", "pipes", 19, []string{"sys_epoll 0.9", "sys_epoll 0.14", "poll()"}, 16000, 38},
		{"dphttpd-2002.csv", "dphttpd 2002", "connections", 19, []string{"sys_epoll 0.9", "sys_epoll 0.14", "poll()"}, 60000, 414.5},
		{"epoll_pipe_bench-2006.csv", "epoll_pipe_bench 2006", "pipes", 2, []string{"epoll -l 1", "epoll -l 10", "bypass -f"}, 10000, 266196.5},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			ref, err := ReadRef(filepath.Join("..", "..", "testdata", c.file))
			if err != nil {
				t.Fatal(err)
			}
			if ref.Label != c.label || ref.XName != c.x || len(ref.Series) != len(c.series) {
				t.Fatalf("ref %q x %q with %d series", ref.Label, ref.XName, len(ref.Series))
			}
			for i, s := range ref.Series {
				if s.Name != c.series[i] {
					t.Errorf("series %d is %q, want %q", i, s.Name, c.series[i])
				}
			}
			first, last := ref.Series[0], ref.Series[len(ref.Series)-1]
			if len(first.X) != c.rows {
				t.Errorf("%d rows, want %d", len(first.X), c.rows)
			}
			n := len(last.X)
			if last.X[n-1] != c.lastX || last.Y[n-1] != c.lastY {
				t.Errorf("last point (%v, %v), want (%v, %v)", last.X[n-1], last.Y[n-1], c.lastX, c.lastY)
			}
		})
	}
}

// The 2006 table holds the median of each run's published per-second lines.
func TestEpollPipeBenchMedians(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "testdata", "epoll_pipe_bench-2006-lines.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.Comment = '#'
	recs, err := cr.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	runs := map[string][]float64{}
	for _, r := range recs[1:] { // backend,pipes,in_flight,second,evts_per_sec,samples_per_call
		col := r[0] + " -l " + r[2]
		if r[0] == "bypass" {
			col = "bypass -f"
		}
		v, err := strconv.ParseFloat(r[4], 64)
		if err != nil {
			t.Fatal(err)
		}
		runs[col+"@"+r[1]] = append(runs[col+"@"+r[1]], v)
	}
	ref, err := ReadRef(filepath.Join("..", "..", "testdata", "epoll_pipe_bench-2006.csv"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range ref.Series {
		for i, x := range s.X {
			lines := runs[fmt.Sprintf("%s@%.0f", s.Name, x)]
			if len(lines) == 0 {
				t.Errorf("%s at %v pipes: no published lines", s.Name, x)
				continue
			}
			if med := stats.Describe(lines, 1).Median; med != s.Y[i] {
				t.Errorf("%s at %v pipes: table says %v, the lines' median is %v", s.Name, x, s.Y[i], med)
			}
			n++
		}
	}
	if n != len(runs) {
		t.Errorf("the table holds %d runs, the lines %d", n, len(runs))
	}
}
