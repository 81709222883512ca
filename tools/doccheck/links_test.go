package doccheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLinks follows every relative link of every page (and of the
// records' README): the file it names exists and, when it names a
// heading of a page, the page has that heading.
func TestLinks(t *testing.T) {
	anchors := map[string]map[string]bool{} // a page's anchors, read once
	anchorsOf := func(path string) (map[string]bool, error) {
		if as, ok := anchors[path]; ok {
			return as, nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		anchors[path] = Anchors(string(data))
		return anchors[path], nil
	}
	for _, page := range append(pages(t), filepath.Join(root, "docs/results/README.md")) {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, page)
		for _, l := range Links(string(data)) {
			dest := page
			if l.File != "" {
				dest = filepath.Join(filepath.Dir(page), l.File)
			}
			if _, err := os.Stat(dest); err != nil {
				t.Errorf("%s:%d: a link to %s, which does not exist", rel, l.Line, l.File)
				continue
			}
			if l.Anchor == "" || !strings.HasSuffix(dest, ".md") {
				continue
			}
			as, err := anchorsOf(dest)
			if err != nil {
				t.Fatal(err)
			}
			if !as[l.Anchor] {
				t.Errorf("%s:%d: a link to %s#%s: no such heading there", rel, l.Line, l.File, l.Anchor)
			}
		}
	}
}

// TestSlug: GitHub's anchors of headings of the kinds the pages have.
func TestSlug(t *testing.T) {
	for text, want := range map[string]string{
		"A fixed load (`-rate`)":           "a-fixed-load--rate",
		"The minimum wait (`-minwait`)":    "the-minimum-wait--minwait",
		"epoll_pipe_bench and pipetest":    "epoll_pipe_bench-and-pipetest",
		"What's here: [records](results/)": "whats-here-records",
		"001: epoll_pipe_bench, 2006":      "001-epoll_pipe_bench-2006",
	} {
		if got := Slug(text); got != want {
			t.Errorf("Slug(%q) = %q, want %q", text, got, want)
		}
	}
}

// TestLinksAndAnchors: links outside fenced blocks and comments, web
// links left out; a repeated heading's anchor numbered; a link to a
// heading a page lacks is found by TestLinks' rule.
func TestLinksAndAnchors(t *testing.T) {
	page := "# T\n\n## A run\n\n## A run\n\nSee [x](other.md#a-run), [y](#a-run-1),\n[web](https://example.com/#x).\n\n```text\n[not](a.md)\n```\n<!-- [nor](b.md) -->\n"
	ls := Links(page)
	if len(ls) != 2 || ls[0] != (Link{7, "other.md", "a-run"}) || ls[1] != (Link{7, "", "a-run-1"}) {
		t.Errorf("links %+v: want other.md#a-run and #a-run-1 on line 7", ls)
	}
	as := Anchors(page)
	if !as["t"] || !as["a-run"] || !as["a-run-1"] || as["a-run-2"] || len(as) != 3 {
		t.Errorf("anchors %v: want t, a-run, a-run-1", as)
	}
}
