package doccheck

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pipebench/pipebench/experiment/report"
)

var update = flag.Bool("update", false, "rewrite the pages' rendered blocks from their records")

// root is the repository's root (the product's module), two levels up.
const root = "../.."

// pages are README.md, every page under docs/ and the tools' READMEs.
func pages(t *testing.T) []string {
	t.Helper()
	ps := []string{filepath.Join(root, "README.md")}
	for _, glob := range []string{"docs/*.md", "tools/*/README.md"} {
		more, err := filepath.Glob(filepath.Join(root, glob))
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, more...)
	}
	return ps
}

// TestRenderedBlocks re-renders every rendered block of every page from
// its record and wants the page's block unchanged: a figure cannot drift
// from its record.
func TestRenderedBlocks(t *testing.T) {
	var bin string // pipebench, built once when a block runs it
	for _, page := range pages(t) {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		bs, err := Blocks(string(data))
		if err != nil {
			t.Errorf("%s: %v", page, err)
			continue
		}
		if len(bs) == 0 {
			continue
		}
		texts := make([]string, len(bs))
		for i, b := range bs {
			dir := filepath.Dir(page)
			if b.AtRoot {
				dir = root
			}
			var got string
			if b.From != "" {
				if !strings.HasSuffix(b.From, ".txt") && bin == "" {
					bin = build(t)
				}
				got, err = render(dir, bin, b.From)
				if err == nil {
					got, err = Lines(got, b.First, b.Last)
				}
			} else {
				if b.By[0] == "pipebench" && bin == "" {
					bin = build(t)
				}
				got, err = run(dir, bin, b.By)
			}
			if err != nil {
				t.Errorf("%s:%d: %v", page, b.Line, err)
				texts[i] = b.Text
				continue
			}
			texts[i] = got
			if got != b.Text && !*update {
				t.Errorf("%s:%d: the block differs from its record (go test ./doccheck -update in tools/ rewrites it):\n--- rendered\n%s--- page\n%s", page, b.Line, got, b.Text)
			}
		}
		if *update {
			if err := os.WriteFile(page, []byte(Replace(string(data), bs, texts)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// build builds pipebench in the product's module, without version control
// information (its build line then says unknown, as the pages' blocks do),
// into a temporary directory.
func build(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "pipebench")
	cmd := exec.Command("go", "build", "-buildvcs=false", "-o", bin, "./cmd/pipebench")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("build pipebench: %v\n%s", err, out)
	}
	return bin
}

// render is the text of the record at from (relative to dir): a JSON
// record as pipebench show prints it (bin is pipebench), a .txt record (a
// table as tools/yardstick/compare.sh printed it, which writes no JSON)
// as it is.
func render(dir, bin, from string) (string, error) {
	if strings.HasSuffix(from, ".txt") {
		data, err := os.ReadFile(filepath.Join(dir, from))
		return string(data), err
	}
	return run(dir, bin, []string{"pipebench", "show", from})
}

// run runs a block's command in dir (pipebench as bin) and returns what it
// wrote to stdout; an exit status other than 0 is an error, with stderr.
func run(dir, bin string, words []string) (string, error) {
	name := words[0]
	if name == "pipebench" {
		name = bin
	}
	cmd := exec.Command(name, words[1:]...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", &runError{strings.Join(words, " "), err, stderr.String()}
	}
	return stdout.String(), nil
}

type runError struct {
	cmd    string
	err    error
	stderr string
}

func (e *runError) Error() string { return e.cmd + ": " + e.err.Error() + ": " + e.stderr }

// TestBlocks: markers and "$ pipebench" blocks are found with their
// blocks, in page order, a bad one is an error naming its line, and
// Replace puts new texts where the old were.
func TestBlocks(t *testing.T) {
	page := "# T\n\n<!-- rendered from results/a.json, lines 2-3 -->\n```text\nx\ny\n```\n\n```text\n$ pipebench compare r/a.json\nw\n```\n\n<!-- rendered by: pipebench top results/k.pb.gz -->\n```text\nz\n```\n"
	bs, err := Blocks(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, verb := range []string{"-summary", "-history"} {
		if sum, err := Blocks("<!-- rendered by: ../tools/yardstick/compare.sh " + verb + " ../tools/yardstick/results/t.txt -->\n```text\n```\n"); err != nil || len(sum) != 1 || len(sum[0].By) != 3 {
			t.Errorf("a compare.sh %s block: %+v, %v", verb, sum, err)
		}
	}
	if empty, err := Blocks("<!-- rendered from a.json -->\n```text\n```\n"); err != nil || len(empty) != 1 || empty[0].Text != "" {
		t.Errorf("an empty block: %+v, %v", empty, err)
	}
	if len(bs) != 3 || bs[0].From != "results/a.json" || bs[0].First != 2 || bs[0].Last != 3 || bs[0].Text != "x\ny\n" || bs[0].Line != 3 || bs[0].AtRoot ||
		strings.Join(bs[1].By, " ") != "pipebench compare r/a.json" || bs[1].Text != "w\n" || bs[1].Line != 9 || !bs[1].AtRoot ||
		strings.Join(bs[2].By, " ") != "pipebench top results/k.pb.gz" || bs[2].Text != "z\n" || bs[2].AtRoot {
		t.Fatalf("blocks %+v", bs)
	}
	want := strings.Replace(strings.Replace(strings.Replace(page, "x\ny\n", "1\n", 1), "\nw\n", "\n2\n", 1), "z\n", "3\n4\n", 1)
	if got := Replace(page, bs, []string{"1\n", "2\n", "3\n4\n"}); got != want {
		t.Errorf("Replace gave\n%s", got)
	}
	if l, err := Lines("a\nb\nc\n", 2, 3); err != nil || l != "b\nc\n" {
		t.Errorf("Lines: %q %v", l, err)
	}
	for _, bad := range []string{
		"<!-- rendered by: rm -rf results -->\n```text\n```\n",
		"<!-- rendered by: pipebench sweep -n 10 -->\n```text\n```\n", // measures: not a rendering
		"```text\n$ pipebench -n 10 -l 1\n```\n",                      // the same, as a command line
		"```text\n$ pipebench compare a.json\nunclosed\n",
		"<!-- rendered by: ../yardstick/compare.sh -b epoll -->\n```text\n```\n", // measures: not a rendering
		"<!-- rendered by: ../elsewhere/compare.sh -summary a.txt -->\n```text\n```\n",
		"<!-- rendered by: ../yardstick/compare.sh -list -->\n```text\n```\n", // neither -summary nor -history
		"<!-- rendered from a.json, lines 3-1 -->\n```text\n```\n",
		"<!-- rendered from a.json -->\nno fence\n",
		"<!-- rendered from a.json -->\n```text\nunclosed\n",
	} {
		if _, err := Blocks("\n" + bad); err == nil || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("%q: error %v, want one naming line 2", bad, err)
		}
	}
}

// TestREADMEFlags holds README's table of flags against pipebench -h:
// every flag of -h is in the table and no other, each with the default -h
// prints ("off", "none" or "stdout" where -h prints none).
func TestREADMEFlags(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	table := map[string]string{}
	row := regexp.MustCompile("(?m)^\\| `-([a-z]+)` \\| ([^|]+) \\|")
	for _, m := range row.FindAllStringSubmatch(string(readme), -1) {
		table[m[1]] = strings.Trim(strings.TrimSpace(m[2]), "`")
	}
	help, err := run(root, build(t), []string{"pipebench", "-h"})
	if err != nil {
		t.Fatal(err)
	}
	flags := map[string]string{} // flag: its default, "" for none
	name := ""
	for _, l := range strings.Split(help, "\n") {
		if m := regexp.MustCompile(`^  -([a-z]+)`).FindStringSubmatch(l); m != nil {
			name = m[1]
			flags[name] = ""
			l = l[len(m[0]):]
		}
		if name == "" {
			continue
		}
		if m := regexp.MustCompile(`\(default ([^()]*)\)$`).FindStringSubmatch(l); m != nil {
			flags[name] = m[1]
		}
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "subcommands") {
			name = ""
		}
	}
	if len(flags) < 20 {
		t.Fatalf("read %d flags from pipebench -h:\n%s", len(flags), help)
	}
	for f, def := range flags {
		got, ok := table[f]
		switch {
		case !ok:
			t.Errorf("-%s is not in README's table of flags", f)
		case def == "" && got != "off" && got != "none" && got != "stdout":
			t.Errorf("-%s: README gives the default %q, -h prints none (want off, none or stdout)", f, got)
		case def != "" && got != def:
			t.Errorf("-%s: README gives the default %q, -h prints %q", f, got, def)
		}
	}
	for f := range table {
		if _, ok := flags[f]; !ok {
			t.Errorf("README's table has -%s, which pipebench -h does not list", f)
		}
	}
}

// TestWarningSections: every section a warning of the run's text points
// to (report.WarningAnchors) is a heading of report.WarningPage, so that
// a warning's "(docs/output.md#noisy)" leads somewhere.
func TestWarningSections(t *testing.T) {
	page, err := os.ReadFile(filepath.Join(root, report.WarningPage))
	if err != nil {
		t.Fatal(err)
	}
	anchors := Anchors(string(page))
	for _, a := range report.WarningAnchors {
		if !anchors[a] {
			t.Errorf("%s has no section #%s, which a warning points to", report.WarningPage, a)
		}
	}
}

// TestCIRunsREADME: the test commands README gives are the ones .ci/run
// runs, word for word, with go vet ./...: the product's, and the tools'
// module's in tools/.
func TestCIRunsREADME(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	const (
		test  = "go test -race -count=1 ./..."
		tools = "(cd tools && go vet ./... && " + test + ")"
	)
	// The newcomer's two commands are indented code lines; the tools'
	// command, which CI runs too, is named in the prose beside them.
	if !strings.Contains(string(readme), "    "+test+" ") {
		t.Errorf("README does not give the test command %q", test)
	}
	if !strings.Contains(string(readme), "`"+tools+"`") {
		t.Errorf("README does not name the tools' test command %q", tools)
	}
	lines := map[string]bool{}
	for _, l := range strings.Split(string(ci), "\n") {
		lines[strings.TrimSpace(l)] = true
	}
	for _, want := range []string{test, "go vet ./...", tools} {
		if !lines[want] {
			t.Errorf(".ci/run has no line %q", want)
		}
	}
}
