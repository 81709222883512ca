package yardstick

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// summaryTable is a table as compare.sh prints it, REPS=3, with one row of
// each kind and a failed row, whose judgements are known: the self rows
// 0.900 (clearly slower) and 0.950, the bounded thread row 1.100 (clearly
// faster), the unbounded process row 1.000, the taskset row 0.980.
const summaryTable = `# 2026-12-02 05:41 UTC  Linux 6.18.44  Intel(R) Xeon(R) Processor  nproc 2  clock tsc  fds 20000  REPS=3 DUR=3s C calls function, tick 10ms  commit 627ea70
# 6 rows x 3 runs x 2 programs x 3s: expected about 2 min on an idle machine (up to 30s more a run on a busy one)
configuration                                         pipebench          C   ratio  slower   runs (pipebench | C)
-b epoll -n 10 -l 1 -writer self                            900       1000   0.900    1.00   900 890 910 | 1000 990 1010
-b poll -n 10 -l 1 -writer self                             950       1000   0.950    0.56   950 1040 900 | 1000 960 1030
-b epoll -n 10 -l 10 -writer thread                        1100       1000   1.100    0.00   1100 1090 1110 | 1000 990 1010
-b epoll -n 10 -l 0 -writer process                        1000       1000   1.000    0.50   1000 990 1010 | 1000 990 1010
-b select -n 10 -l 0 -writer process                          -          -  failed       -   failed 1 2 | 3 4 5
taskset=0 -b poll -n 10 -l 10 -writer thread                980       1000   0.980    0.67   980 970 1000 | 1000 990 985
# 5 rows in 2 min; 1 with pipebench below 0.95 of C, 1 of them clearly slower (slower 0.92 or more)
# whole table: median ratio 0.980; rows with pipebench clearly slower 1, clearly faster 1 (two equally fast programs: about 0 each way, more than 2 in under 1% of tables)
`

// TestCompareSummary checks compare.sh -summary on a table whose
// judgements are known: its first line, the whole table, then each kind of
// row in the order the kinds first appear; a failed row left out.
func TestCompareSummary(t *testing.T) {
	bash := bashOrSkip(t)
	path := filepath.Join(t.TempDir(), "table.txt")
	if err := os.WriteFile(path, []byte(summaryTable), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCmd(t, exec.Command(bash, "compare.sh", "-summary", path))
	chance := func(n, k int) string {
		return fmt.Sprintf("(two equally fast programs: about %.0f each way, more than %d in under 1%% of tables)", float64(n)*0.05, k)
	}
	want := strings.Join([]string{
		strings.SplitN(summaryTable, "\n", 2)[0],
		"# whole table: median ratio 0.980; rows with pipebench clearly slower 1, clearly faster 1 " + chance(5, 2),
		"# -writer self, 2 rows: median ratio 0.925; rows with pipebench clearly slower 1, clearly faster 0 " + chance(2, 1),
		"# -writer thread or process, -l 1 or more, 1 row: median ratio 1.100; rows with pipebench clearly slower 0, clearly faster 1 " + chance(1, 1),
		"# -writer thread or process, -l 0, 1 row: median ratio 1.000; rows with pipebench clearly slower 0, clearly faster 0 " + chance(1, 1),
		"# one CPU (taskset), 1 row: median ratio 0.980; rows with pipebench clearly slower 0, clearly faster 0 " + chance(1, 1),
	}, "\n") + "\n"
	if code != 0 || stdout != want || stderr != "" {
		t.Errorf("compare.sh -summary: exit %d, stderr %q, stdout\n%s\nwant\n%s", code, stderr, stdout, want)
	}
}

// TestCompareSummaryRecords judges every table kept in results/
// again and holds each judgement to the one its run printed, where it
// printed one (the whole table always; the kinds of row since compare.sh
// prints them): the same counts, the same chance, the median within the
// rounding of the printed ratios. The kinds' rows add up to the table's.
func TestCompareSummaryRecords(t *testing.T) {
	bash := bashOrSkip(t)
	records, err := filepath.Glob("results/compare-*.txt")
	if err != nil || len(records) == 0 {
		t.Fatalf("no compare.sh tables in results/: %v", err)
	}
	judgement := regexp.MustCompile(`^# (.*): median ratio ([0-9.]+); (.*)$`)
	rowsOf := regexp.MustCompile(`, ([0-9]+) rows?$`)
	for _, rec := range records {
		data, err := os.ReadFile(rec)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		var printed [][]string // the run's judgements: the whole table, then its kinds
		rows := 0
		for _, l := range lines {
			if m := judgement.FindStringSubmatch(l); m != nil && (m[1] == "whole table" || len(printed) > 0) {
				printed = append(printed, m)
			}
			if !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "configuration") && strings.Contains(l, "|") && !strings.Contains(l, " failed ") {
				rows++
			}
		}
		if len(printed) == 0 {
			t.Errorf("%s: no whole-table line", rec)
			continue
		}
		code, stdout, stderr := runCmd(t, exec.Command(bash, "compare.sh", "-summary", rec))
		out := strings.Split(strings.TrimSpace(stdout), "\n")
		if code != 0 || len(out) < 2 || out[0] != lines[0] {
			t.Errorf("%s: exit %d, stderr %q, output %q; want the table's first line, then its judgements", rec, code, stderr, stdout)
			continue
		}
		var again [][]string
		for _, l := range out[1:] {
			m := judgement.FindStringSubmatch(l)
			if m == nil {
				t.Errorf("%s: %q is not a judgement", rec, l)
				continue
			}
			again = append(again, m)
		}
		if len(again) == 0 || again[0][1] != "whole table" {
			t.Errorf("%s: judged again %q, want the whole table first", rec, stdout)
			continue
		}
		for i, p := range printed {
			if i >= len(again) {
				t.Errorf("%s: the run printed %q, not judged again", rec, p[0])
				continue
			}
			a, _ := strconv.ParseFloat(p[2], 64)
			b, _ := strconv.ParseFloat(again[i][2], 64)
			if again[i][1] != p[1] || again[i][3] != p[3] || a-b > 0.0015 || b-a > 0.0015 {
				t.Errorf("%s: judged again %q, the run printed %q", rec, again[i][0], p[0])
			}
		}
		sum := 0
		for _, m := range again[1:] {
			n := rowsOf.FindStringSubmatch(m[1])
			if n == nil {
				t.Errorf("%s: %q names no rows", rec, m[0])
				continue
			}
			k, _ := strconv.Atoi(n[1])
			sum += k
		}
		if len(again) > 1 && sum != rows {
			t.Errorf("%s: the kinds hold %d rows, the table %d", rec, sum, rows)
		}
	}
}

// selfTable is a table of self rows only, the yardstick against itself,
// whose judgement passes: a median of 1.000, no row clearly either way.
const selfTable = `# 2026-12-03 08:12 UTC  Linux 6.18.44  AMD EPYC (family 26 model 2)  nproc 2  clock tsc  fds 20000  REPS=3 DUR=3s C calls inline AA=1 (the yardstick against itself)  commit 1e6562c
configuration                                         C again          C   ratio  slower   runs (C again | C)
-b epoll -n 10 -l 1 -writer self                            990       1000   0.990    0.67   990 985 1005 | 1000 995 1001
-b poll -n 10 -l 1 -writer self                            1010       1000   1.010    0.33   1010 1015 995 | 1000 1005 999
-b epoll -n 10 -l 10 -writer self                          1000       1000   1.000    0.44   1000 1005 999 | 1000 998 1004
`

// TestCompareHistory checks compare.sh -history on tables whose judgements
// are known: one line a table, its time, CPU (with its family/model where
// the header names them), commit, first column and C
// settings from its first line; each cell the median ratio, the rows
// clearly slower and faster and chance's bound; the whole-table test and
// what fails it; "-" for a kind the table does not hold; the tables in the
// order they began; a missing table, and one of too few runs to judge,
// refused before anything is printed.
func TestCompareHistory(t *testing.T) {
	bash := bashOrSkip(t)
	dir := t.TempDir()
	mixed, self := filepath.Join(dir, "mixed.txt"), filepath.Join(dir, "self.txt")
	for p, text := range map[string]string{mixed: summaryTable, self: selfTable} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Given the later table first: the lines come in the order the tables began.
	code, stdout, stderr := runCmd(t, exec.Command(bash, "compare.sh", "-history", self, mixed))
	fields := func(l string) []string { return strings.Fields(l) }
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if code != 0 || stderr != "" || len(lines) != 3 {
		t.Fatalf("compare.sh -history: exit %d, stderr %q, stdout\n%s\nwant a header and two lines", code, stderr, stdout)
	}
	for i, want := range [][]string{
		{"table", "(UTC)", "CPU", "commit", "first", "column", "C", "calls,", "tick", "whole", "table", "test", "self", "thr/proc", "-l", "1+", "thr/proc", "-l", "0", "one", "CPU"},
		{"2026-12-02", "05:41", "Intel", "Xeon", "627ea70", "pipebench", "function,", "10ms", "0.980", "1/1", "[2]", "fails:", "median",
			"0.925", "1/0", "[1]", "1.100", "0/1", "[1]", "1.000", "0/0", "[1]", "0.980", "0/0", "[1]"},
		{"2026-12-03", "08:12", "AMD", "EPYC", "26/2", "1e6562c", "C", "again", "inline,", "-", "1.000", "0/0", "[1]", "passes",
			"1.000", "0/0", "[1]", "-", "-", "-"},
	} {
		if got := fields(lines[i]); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("compare.sh -history, line %d:\n%q\nwant the fields\n%q", i+1, got, want)
		}
	}
	// The columns line up: every line's cells start where the header's do.
	for _, col := range []string{"whole table", "test", "self", "one CPU"} {
		at := strings.Index(lines[0], col)
		for _, l := range lines[1:] {
			if at <= 0 || at >= len(l) || l[at-1] != ' ' || l[at] == ' ' {
				t.Errorf("compare.sh -history: %q does not start a cell at column %d of %q", col, at, l)
			}
		}
	}
	code, stdout, stderr = runCmd(t, exec.Command(bash, "compare.sh", "-history"))
	if want := "usage: compare.sh -history TABLE ...   (TABLE: a file compare.sh printed)\n"; code != 2 || stdout != "" || stderr != want {
		t.Errorf("compare.sh -history: exit %d, stdout %q, stderr %q; want 2, %q", code, stdout, stderr, want)
	}
	none := filepath.Join(dir, "none.txt")
	code, stdout, stderr = runCmd(t, exec.Command(bash, "compare.sh", "-history", mixed, none))
	if want := "compare.sh: -history " + none + ": no such readable file\n"; code != 2 || stdout != "" || stderr != want {
		t.Errorf("compare.sh -history with a missing table: exit %d, stdout %q, stderr %q; want 2, nothing, %q", code, stdout, stderr, want)
	}
	// Two runs a row: -summary says no row can be judged; -history, whose
	// test needs the counts, refuses the table rather than pass it on its
	// median alone.
	two := filepath.Join(dir, "two.txt")
	twoRuns := "# 2026-12-03 09:00 UTC  Linux 6.18.44  AMD EPYC  nproc 2  clock tsc  fds 20000  REPS=2 DUR=3s C calls function, tick 10ms  commit 1e6562c\n" +
		"configuration                                         pipebench          C   ratio  slower   runs (pipebench | C)\n" +
		"-b epoll -n 10 -l 1 -writer self                           1000       1000   1.000    0.50   1000 1001 | 999 1000\n"
	if err := os.WriteFile(two, []byte(twoRuns), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runCmd(t, exec.Command(bash, "compare.sh", "-history", mixed, two))
	if want := "compare.sh: -history " + two + ": fewer than 3 runs a row: no row can be clearly slower or faster (REPS=3 or more)\n"; code != 2 || stdout != "" || stderr != want {
		t.Errorf("compare.sh -history with a table of two runs a row: exit %d, stdout %q, stderr %q; want 2, nothing, %q", code, stdout, stderr, want)
	}
}

// TestCompareSummaryBad: what -summary cannot judge gets one line and exit
// status 2.
func TestCompareSummaryBad(t *testing.T) {
	bash := bashOrSkip(t)
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.txt")
	if err := os.WriteFile(empty, []byte("# a header\nno table here\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mixed := filepath.Join(dir, "mixed.txt")
	two := "-b poll -n 10 -l 1 -writer self   1 1 1.000 0.50   1 1 | 1 1\n"
	if err := os.WriteFile(mixed, []byte(summaryTable+two), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "usage: compare.sh -summary TABLE ...   (TABLE: a file compare.sh printed)\n"},
		{[]string{filepath.Join(dir, "none.txt")}, "compare.sh: -summary " + filepath.Join(dir, "none.txt") + ": no such readable file\n"},
		{[]string{empty}, "compare.sh: -summary " + empty + ": no rows of compare.sh's table in it\n"},
		{[]string{mixed}, "compare.sh: -summary " + mixed + ": rows with different numbers of runs (2 3 ): want one table's rows\n"},
	} {
		code, stdout, stderr := runCmd(t, exec.Command(bash, append([]string{"compare.sh", "-summary"}, c.args...)...))
		if code != 2 || stdout != "" || stderr != c.want {
			t.Errorf("compare.sh -summary %q: exit %d, stdout %q, stderr %q; want 2, %q", c.args, code, stdout, stderr, c.want)
		}
	}
}

// bashOrSkip returns bash's path, or skips the test where there is none.
func bashOrSkip(t *testing.T) string {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skipf("bash not found: %v", err)
	}
	return bash
}
