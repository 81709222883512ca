package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every table of the docs that pipebench compare renders from a record
// under docs/results is rendered again here, and must be the page's to the
// byte: a figure cannot drift from its record. A page shows such a table
// as a fenced block whose first line is the command, "$ pipebench compare
// ARGS", with paths from the repository's root. The last line, the build
// of the binary that rendered it, is left out of the comparison.
func TestDocsTablesRenderFromRecords(t *testing.T) {
	t.Chdir("../..") // the commands name their records from the repository's root
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)```text\n\\$ pipebench (compare [^\n]*)\n(.*?)```")
	found := 0
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range block.FindAllStringSubmatch(string(b), -1) {
			found++
			code, stdout, stderr := invoke(t, strings.Fields(m[1])...)
			if code != exitOK {
				t.Errorf("%s: pipebench %s: exit %d: %s", page, m[1], code, stderr)
				continue
			}
			if got, want := dropBuildLine(stdout), dropBuildLine(m[2]); got != want {
				t.Errorf("%s: pipebench %s renders otherwise than the page shows:\n--- rendered\n%s--- page\n%s", page, m[1], got, want)
			}
		}
	}
	if found == 0 {
		t.Error("no table rendered from a record in docs/: docs/compare.md has some")
	}
}

// dropBuildLine leaves out the line naming the pipebench build and
// compare's own command line, which say who rendered the table.
func dropBuildLine(s string) string {
	var keep []string
	for _, l := range strings.SplitAfter(s, "\n") {
		if strings.HasPrefix(l, "pipebench      ") || strings.HasPrefix(l, "command        ") {
			continue
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "")
}
