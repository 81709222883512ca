// Package layout_test holds the module's import rules as a test: the
// floors of the house, top down, and which way an import may run. It is
// the one statement of them; docs/contributing.md shows the same floors
// for readers.
package layout_test

import (
	"fmt"
	"go/build"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/pipebench/pipebench/"

// floors are the module's packages by directory, the top floor first. A
// package's non-test files may import the module's packages on lower
// floors only, and its parent directory's package (a subpackage builds on
// its parent: pipebench/summary on the harness, experiment/sweep/plot on
// the sweep): never one on its own floor or above. A package on no floor
// fails the test: a new package states its floor here and in
// docs/contributing.md.
var floors = [][]string{
	// 1. The command: flags, subcommands, the backend table.
	{"cmd/pipebench"},
	// 2. What composes the experiments: the seeds' claims, and compare,
	// which reads every experiment's records back.
	{"experiment/seeds", "experiment/compare"},
	// 3. The experiments, each with its own text, and the plain run's
	// report; the test fixture of a run, made of a record's head.
	{"experiment/sweep", "experiment/sweep/plot", "experiment/herd", "experiment/timeout", "experiment/report", "experiment/fixture"},
	// 4. What every output shares: a record's head, the machine's lines,
	// Doc.
	{"experiment/record"},
	// 5. What a run comes to, as numbers; numbers, tables and lines of
	// text in one style (below the record, whose lines it lays out).
	{"pipebench/summary", "experiment/text"},
	// 6. The backends, and the conformance suite they pass.
	{"poll", "select", "epoll", "uring", "gonet", "pipebench/pipebenchtest"},
	// 7. The harness.
	{"pipebench"},
	// 8. Numbers, profiles and helpers: nothing of ours.
	{"stats", "stats/compare", "internal/child", "internal/envinfo", "internal/fdlimit", "internal/golden", "internal/lifecycle",
		"internal/osthread", "internal/profile", "internal/rounds", "internal/tokens", "internal/waitcall"},
}

// floorOf is dir's floor (1 the top), or 0 when it has none.
func floorOf(dir string) int {
	for i, fl := range floors {
		if slices.Contains(fl, dir) {
			return i + 1
		}
	}
	return 0
}

// violations are the imports that run sideways or upward, and the
// packages on no floor, of imports (each package's directory and the
// directories of the module's packages its non-test files import).
func violations(imports map[string][]string) []string {
	var bad []string
	for dir, imps := range imports {
		at := floorOf(dir)
		if at == 0 {
			bad = append(bad, dir+": a package on no floor (add it to floors)")
			continue
		}
		for _, imp := range imps {
			to := floorOf(imp)
			if imp == filepath.Dir(dir) || to > at {
				continue
			}
			bad = append(bad, fmt.Sprintf("%s (floor %d) imports %s (floor %d)", dir, at, imp, to))
		}
	}
	sort.Strings(bad)
	return bad
}

// imports are the module's package directories under root (with a
// non-test Go file), relative to it, and the module's packages each
// imports. A directory holding a go.mod of its own is another module
// (tools/), outside the rules and outside ./..., and is left out with
// everything below it.
func imports(t *testing.T, root string) map[string][]string {
	out := map[string][]string{}
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
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		if _, done := out[rel]; done {
			return nil
		}
		p, err := build.ImportDir(filepath.Dir(path), 0)
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		out[rel] = []string{}
		for _, imp := range p.Imports {
			if ours, ok := strings.CutPrefix(imp, module); ok {
				out[rel] = append(out[rel], ours)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestImportRules(t *testing.T) {
	for _, v := range violations(imports(t, ".")) {
		t.Error(v)
	}
}

// TestImportRulesCatchPlantedImports: an import planted upward, one
// sideways (a backend importing another), a package on no floor, each is
// found; a subpackage importing its parent is not, nor a package going
// down. The rules are not vacuous.
func TestImportRulesCatchPlantedImports(t *testing.T) {
	got := violations(map[string][]string{
		"stats":             {"pipebench"},
		"epoll":             {"poll", "pipebench"},
		"pipebench":         {"pipebench/summary"},
		"pipebench/summary": {"pipebench", "stats"},
		"experiment/record": {"experiment/report"},
		"internal/profile":  {"internal/rounds"},
		"newpackage":        {},
	})
	want := []string{
		"epoll (floor 6) imports poll (floor 6)",
		"experiment/record (floor 4) imports experiment/report (floor 3)",
		"internal/profile (floor 8) imports internal/rounds (floor 8)",
		"newpackage: a package on no floor (add it to floors)",
		"pipebench (floor 7) imports pipebench/summary (floor 5)",
		"stats (floor 8) imports pipebench (floor 7)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestImportRulesReadPlantedFiles: the rules read a tree's files: an
// upward import planted in a package's copy is found, and a nested
// module's packages (tools/) are not the module's.
func TestImportRulesReadPlantedFiles(t *testing.T) {
	root := t.TempDir()
	for dir, src := range map[string]string{
		"stats":             "package stats\n\nimport _ \"github.com/pipebench/pipebench/experiment/report\"\n",
		"experiment/report": "package report\n\nimport _ \"github.com/pipebench/pipebench/stats\"\n",
		"tools/x":           "package x\n\nimport _ \"github.com/pipebench/pipebench/cmd/pipebench\"\n",
		"tools":             "module github.com/pipebench/pipebench/tools\n",
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
	got := strings.Join(violations(imports(t, root)), "\n")
	if want := "stats (floor 8) imports experiment/report (floor 3)"; got != want {
		t.Errorf("violations:\n%s\nwant:\n%s", got, want)
	}
}

// TestContributingTableIsTheFloors: the map of docs/contributing.md puts
// each directory on the floor floors does, and names every directory
// floors names.
func TestContributingTableIsTheFloors(t *testing.T) {
	b, err := os.ReadFile("docs/contributing.md")
	if err != nil {
		t.Fatal(err)
	}
	dirRe := regexp.MustCompile("`([a-z/]+)/`")
	seen := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		cells := strings.Split(line, " | ")
		if len(cells) != 3 || !strings.HasPrefix(line, "| ") {
			continue
		}
		floor, err := strconv.Atoi(strings.TrimPrefix(cells[0], "| "))
		if err != nil {
			continue
		}
		for _, m := range dirRe.FindAllStringSubmatch(cells[1], -1) {
			dir := m[1]
			seen[dir] = true
			if want := floorOf(dir); want != floor {
				t.Errorf("docs/contributing.md puts %s on floor %d, floors on %d", dir, floor, want)
			}
		}
	}
	for _, fl := range floors {
		for _, dir := range fl {
			if !seen[dir] {
				t.Errorf("%s is on a floor but has no row in docs/contributing.md", dir)
			}
		}
	}
}
