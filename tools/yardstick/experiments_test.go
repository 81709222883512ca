package yardstick

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	// The command is built from this module (go build ./cmd/pipebench): the
	// modules its packages need must be required here, and compare's
	// (gonum/plot, x/perf) are reached by no other import of tools.
	_ "github.com/pipebench/pipebench/experiment/compare"
)

// TestCSVColumnsMatchPipebench holds the C programs' -format csv to
// pipebench's: compare-experiments.sh reads both by column name, so the
// columns must be the same, in the same order.
func TestCSVColumnsMatchPipebench(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("go not found, cannot build pipebench: %v", err)
	}
	pb := filepath.Join(t.TempDir(), "pipebench")
	if out, err := exec.Command(goTool, "build", "-o", pb, "github.com/pipebench/pipebench/cmd/pipebench").CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/pipebench: %v\n%s", err, out)
	}
	for _, c := range []struct {
		name, bin string
		args      []string
	}{
		{"herd", buildHerd(t), []string{"-waiters", "2", "-n", "4", "-d", "100ms", "-i", "100ms", "-format", "csv"}},
		{"timeout", buildTimeout(t), []string{"-samples", "1", "-timeouts", "50us", "-mechanisms", "ppoll", "-format", "csv"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, stderr := run(t, pb, append([]string{c.name}, c.args...)...)
			if code != 0 {
				t.Fatalf("pipebench %s: exit %d, stderr %q", c.name, code, stderr)
			}
			want, wantRows := parseCSV(t, out)
			code, out, stderr = run(t, c.bin, c.args...)
			if code != 0 {
				t.Fatalf("%s: exit %d, stderr %q", c.bin, code, stderr)
			}
			got, gotRows := parseCSV(t, out)
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("columns\n%s\nwant pipebench's\n%s", strings.Join(got, ","), strings.Join(want, ","))
			}
			if len(gotRows) != len(wantRows) {
				t.Errorf("%d rows, pipebench %d", len(gotRows), len(wantRows))
			}
		})
	}
}

// TestCompareExperimentsList checks compare.sh herd and timeout's default
// rows without measuring anything (-list takes no lock and builds nothing).
func TestCompareExperimentsList(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skipf("bash not found: %v", err)
	}
	list := func(args ...string) (int, []string, string) {
		cmd := exec.Command(bash, append([]string{"compare.sh"}, args...)...)
		cmd.Env = append(os.Environ(), "REPS=3", "DUR=3s", "QUIET=30")
		code, stdout, stderr := runCmd(t, cmd)
		return code, strings.Split(strings.TrimSuffix(stdout, "\n"), "\n"), stderr
	}
	code, lines, stderr := list("herd", "-list")
	want := []string{"-waiters 8 -n 100 -l 1", "-waiters 8 -n 100 -l 10", "-waiters 64 -n 1000 -l 1",
		"-mode processes -waiters 8 -n 100 -l 1", "4 rows x 3 runs x 2 programs: expected about 3 min on an idle machine"}
	if code != 0 || strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("compare.sh herd -list: exit %d, stderr %q, lines %q; want %q", code, stderr, lines, want)
	}
	code, lines, _ = list("timeout", "-list", "-samples 50 -slack 1ns")
	if code != 0 || len(lines) != 3 || lines[0] != "-samples 50 -slack 1ns" || !strings.HasPrefix(lines[2], "1 rows x 3 runs x 2 programs") {
		t.Errorf("compare.sh timeout -list with a row: exit %d, lines %q", code, lines)
	}
	cmd := exec.Command(bash, "compare.sh", "herd", "-list")
	cmd.Env = append(os.Environ(), "REPS=0")
	if code, _, stderr := runCmd(t, cmd); code != 2 || stderr != "compare.sh: REPS=0: want a positive integer\n" {
		t.Errorf("REPS=0: exit %d, stderr %q; want exit 2 and one line", code, stderr)
	}
}
