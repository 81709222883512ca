// Package layout_test holds the module's import rules as a test: which of
// pipebench's packages each may import. It is the one statement of them;
// docs/contributing.md shows the same table for readers.
package layout_test

import (
	"go/build"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/pipebench/pipebench/"

// mayImport is, for each package of the module (by directory), the
// packages of the module its non-test files may import: "*" for any. A
// pattern ending in "/*" takes every package below it. A package not
// listed here fails the test: a new package states its rule.
var mayImport = map[string][]string{
	"cmd/pipebench":           {"*"},
	"pipebench":               {"stats", "internal/child", "internal/fdlimit", "internal/lifecycle", "internal/osthread", "internal/tokens", "internal/waitcall"},
	"pipebench/pipebenchtest": {"pipebench", "internal/child", "internal/fdlimit", "internal/osthread"},
	// The backends: the harness and the wait call's helpers, never
	// another backend.
	"poll":   {"pipebench", "internal/waitcall"},
	"select": {"pipebench", "internal/waitcall"},
	"epoll":  {"pipebench", "internal/waitcall"},
	"uring":  {"pipebench", "internal/waitcall"},
	"gonet":  {"pipebench", "internal/waitcall"},
	// Numbers only: nothing of ours.
	"stats":             {},
	"stats/compare":     {},
	"pipebench/summary": {"pipebench", "stats"},
	"stats/profile":     {"pipebench"},
	// Every format of every subcommand: what the experiments and the
	// summaries compute, laid out.
	"stats/report":            {"stats", "pipebench/summary", "stats/profile", "stats/compare", "stats/report/plot", "experiment/*", "pipebench", "internal/envinfo"},
	"stats/report/reporttest": {"experiment/record", "stats/report", "pipebench/summary", "pipebench", "stats", "internal/envinfo", "experiment/seeds"},
	"stats/report/plot":       {"experiment/sweep", "stats"},
	// No experiment imports stats/report: report formats the experiments.
	"experiment/herd":    {"pipebench", "epoll", "stats", "internal/child", "internal/fdlimit", "internal/lifecycle", "internal/osthread", "internal/tokens"},
	"experiment/timeout": {"pipebench", "stats", "internal/osthread", "internal/waitcall"},
	"experiment/sweep":   {"pipebench", "stats", "pipebench/summary"},
	"experiment/seeds":   {"pipebench", "experiment/sweep", "experiment/herd", "experiment/timeout", "stats", "pipebench/summary", "stats/profile"},
	"experiment/record":  {"internal/envinfo"},
	"experiment/text":    {"stats"},
	// Helpers: nothing of ours.
	"internal/child":     {},
	"internal/envinfo":   {},
	"internal/fdlimit":   {},
	"internal/golden":    {},
	"internal/lifecycle": {},
	"internal/osthread":  {},
	"internal/tokens":    {},
	"internal/waitcall":  {},
}

func allowed(rules []string, imp string) bool {
	for _, r := range rules {
		if r == "*" || r == imp || strings.HasSuffix(r, "/*") && strings.HasPrefix(imp, strings.TrimSuffix(r, "*")) {
			return true
		}
	}
	return false
}

// packages are the module's package directories (with a non-test Go
// file), relative to the root. A directory holding a go.mod of its own is
// another module (tools/), outside the rules and outside ./..., and is
// left out with everything below it.
func packages(t *testing.T, root string) []string {
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root {
			if strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			rel, _ := filepath.Rel(root, filepath.Dir(path))
			if len(dirs) == 0 || dirs[len(dirs)-1] != rel {
				dirs = append(dirs, rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// violations are the imports of the packages under root that their rules
// forbid, and the packages that have no rule.
func violations(t *testing.T, root string) []string {
	var bad []string
	for _, dir := range packages(t, root) {
		rules, ok := mayImport[dir]
		if !ok {
			bad = append(bad, dir+": a package with no import rule (add it to mayImport)")
			continue
		}
		p, err := build.ImportDir(filepath.Join(root, dir), 0)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		for _, imp := range p.Imports {
			if rel, ours := strings.CutPrefix(imp, module); ours && !allowed(rules, rel) {
				bad = append(bad, dir+" imports "+rel)
			}
		}
	}
	sort.Strings(bad)
	return bad
}

func TestImportRules(t *testing.T) {
	for _, v := range violations(t, ".") {
		t.Error(v)
	}
}

// A forbidden import planted in a copy of a package is found: the rules
// are not vacuous. A nested module's packages are not the module's.
func TestImportRulesCatchAPlantedImport(t *testing.T) {
	root := t.TempDir()
	for dir, src := range map[string]string{
		"stats":      "package stats\n\nimport _ \"github.com/pipebench/pipebench/pipebench\"\n",
		"epoll":      "package epoll\n\nimport _ \"github.com/pipebench/pipebench/poll\"\n",
		"poll":       "package poll\n\nimport _ \"github.com/pipebench/pipebench/pipebench\"\n",
		"newpackage": "package newpackage\n",
		"tools/x":    "package x\n\nimport _ \"github.com/pipebench/pipebench/cmd/pipebench\"\n",
		"tools":      "module github.com/pipebench/pipebench/tools\n",
	} {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		name := "x.go"
		if dir == "tools" {
			name = "go.mod"
		}
		if err := os.WriteFile(filepath.Join(root, dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := strings.Join(violations(t, root), "\n")
	want := "epoll imports poll\nnewpackage: a package with no import rule (add it to mayImport)\nstats imports pipebench"
	if got != want {
		t.Errorf("violations:\n%s\nwant:\n%s", got, want)
	}
}

// The table of docs/contributing.md says what mayImport says: each
// directory's "may import" column, its braces spelled out.
func TestContributingTableIsTheRules(t *testing.T) {
	b, err := os.ReadFile("docs/contributing.md")
	if err != nil {
		t.Fatal(err)
	}
	dirRe := regexp.MustCompile("`([a-z/]+)/`")
	braces := regexp.MustCompile(`([a-z/]*)\{([^}]*)\}`)
	seen := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		cells := strings.Split(line, " | ")
		if len(cells) != 3 || !strings.HasPrefix(line, "| `") {
			continue
		}
		col := strings.TrimSuffix(strings.TrimSpace(cells[2]), " |")
		if col == "—" {
			continue
		}
		col, _, _ = strings.Cut(col, ";")
		col = braces.ReplaceAllStringFunc(col, func(m string) string {
			g := braces.FindStringSubmatch(m)
			var out []string
			for _, x := range strings.Split(g[2], ",") {
				out = append(out, g[1]+strings.TrimSpace(x))
			}
			return strings.Join(out, ", ")
		})
		var want []string
		switch col {
		case "everything":
			want = []string{"*"}
		case "nothing of ours", "nothing":
		default:
			for _, x := range strings.Split(col, ",") {
				want = append(want, strings.TrimSpace(x))
			}
		}
		sort.Strings(want)
		for _, m := range dirRe.FindAllStringSubmatch(cells[0], -1) {
			dir := m[1]
			seen[dir] = true
			rules, ok := mayImport[dir]
			if !ok {
				t.Errorf("docs/contributing.md names %s, which has no rule", dir)
				continue
			}
			got := append([]string{}, rules...)
			sort.Strings(got)
			if strings.Join(got, ", ") != strings.Join(want, ", ") {
				t.Errorf("%s: the table says %q, the rule %q", dir, want, got)
			}
		}
	}
	for dir := range mayImport {
		if !seen[dir] {
			t.Errorf("%s has a rule but no row in docs/contributing.md", dir)
		}
	}
}
