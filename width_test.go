package layout_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The text output is pasted into mail: no line of a text a command writes
// by default (or with -v) is wider than textWidth, nor of compare's than
// compareWidth. The golden files hold that text; this test holds them to
// it, so that a change that widens a line fails here and not in a reader's
// mail.
const (
	textWidth    = 80
	compareWidth = 100
)

// widthOf is the widest line allowed in the golden file at path (from the
// module's root), or 0 when the file is not a text output: a record
// (JSON), a table for a spreadsheet (CSV), benchstat's format, markdown
// for a page, an error line (testdata/errors: one line naming the flag and
// what is allowed, on stderr, as long as it must be), or the shape of a
// real run's output (cmd/pipebench/testdata/output: its numbers hidden and
// its wrapped lines joined; TestOutputShape holds the output itself to
// textWidth).
func widthOf(path string) int {
	base := filepath.Base(path)
	switch {
	case strings.Contains(path, "/testdata/errors/"), strings.Contains(path, "/testdata/output/"):
		return 0
	case strings.HasSuffix(base, ".text.golden") && strings.Contains(path, "/testdata/compare/"):
		return compareWidth
	case strings.HasSuffix(base, ".text"), strings.HasSuffix(base, ".text.golden"):
		return textWidth
	}
	return 0
}

// TestGoldenWidths: every golden text output of the module, the run's
// (its default and -v), the sweep's, the herd's, timeout's, the seeds' and
// compare's, within its width.
func TestGoldenWidths(t *testing.T) {
	checked := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (path == "tools" || path == "docs" || strings.HasPrefix(d.Name(), ".")) && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.Contains(path, "testdata/") {
			return nil
		}
		width := widthOf("/" + filepath.ToSlash(path))
		if width == 0 {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		checked++
		for i, l := range strings.Split(string(b), "\n") {
			if n := len([]rune(l)); n > width {
				t.Errorf("%s:%d: %d columns, over %d: %s", path, i+1, n, width, l)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 20 {
		t.Errorf("checked %d golden text files: want every command's (are they still under testdata/?)", checked)
	}
}
