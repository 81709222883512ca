package doccheck

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// budgets are the most lines each page may hold. A page with no budget
// fails the test: a new page states its own. Each is the page's length
// when issue 51 made the pages reference, rounded up to the next 10;
// workload.md's and seeds.md's leave room for the fixed load's section and
// seed 002's, being written.
var budgets = map[string]int{
	"README.md":                 200,
	"docs/backends.md":          70,
	"docs/compare.md":           250,
	"docs/contributing.md":      90,
	"docs/experiments.md":       80,
	"docs/herd.md":              120,
	"docs/limits.md":            40,
	"docs/many-cores.md":        180,
	"docs/output.md":            240,
	"docs/profiles.md":          170,
	"docs/seeds.md":             275,
	"docs/speed.md":             150,
	"docs/statistics.md":        80,
	"docs/sweep.md":             176, // 150, and issue 50's open loop
	"docs/timeout.md":           90,
	"docs/uring-gonet.md":       200, // and issue 52's rendered comparison
	"docs/uring-rw.md":          150,
	"docs/workload.md":          160,
	"tools/yardstick/README.md": 630,
}

// docsBudget is the most lines the pages under docs/ may hold together,
// and totalBudget every page (README.md, docs/, the tools' READMEs): their
// totals when issue 51 made the pages reference, with room for the
// sections being written, well below the sum of the budgets, so that a
// page grows only where another shrinks.
const (
	docsBudget  = 2470 // under issue 51's 2,500
	totalBudget = 3300
)

// TestPageBudgets holds every page of README.md, docs/ and the tools'
// READMEs to its budget of lines, docs/ and all of them to theirs, and to
// reference: no dated heading and no dated sitting (see dated).
func TestPageBudgets(t *testing.T) {
	total, docs := 0, 0
	seen := map[string]bool{}
	for _, page := range pages(t) {
		rel, err := filepath.Rel(root, page)
		if err != nil {
			t.Fatal(err)
		}
		seen[rel] = true
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		n := strings.Count(string(data), "\n")
		total += n
		if strings.HasPrefix(rel, "docs/") {
			docs += n
		}
		switch max, ok := budgets[rel]; {
		case !ok:
			t.Errorf("%s: a page with no budget (add it to budgets in budget_test.go)", rel)
		case n > max:
			t.Errorf("%s: %d lines, over its budget of %d", rel, n, max)
		}
		for _, d := range dated(string(data)) {
			t.Errorf("%s:%s", rel, d)
		}
	}
	for rel := range budgets {
		if !seen[rel] {
			t.Errorf("budgets names %s, which is not a page", rel)
		}
	}
	if docs > docsBudget {
		t.Errorf("the pages under docs/ hold %d lines together, over the budget of %d", docs, docsBudget)
	}
	if total > totalBudget {
		t.Errorf("the pages hold %d lines together, over the budget of %d", total, totalBudget)
	}
}

var (
	// month is a month's name or its abbreviation.
	month = `(January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\.?`
	// date is a day of a month: "4 December", "Dec 4", "2026-12-04". An
	// ISO date inside a name ("-xeon-2026-12-04.json") is a record's name,
	// not a date of the text.
	date = regexp.MustCompile(`\b([0-3]?[0-9])\s+` + month + `\b|\b` + month + `\s+([0-3]?[0-9])\b|(?:^|[^-\w])\d{4}-(\d{2})-(\d{2})\b`)
	// clock is a time of day: "18:02", "20:08:29 UTC".
	clock   = regexp.MustCompile(`\b[0-2]?[0-9]:[0-5][0-9](:[0-5][0-9])?\b`)
	heading = regexp.MustCompile(`^#{1,6} `)
	// item begins a list item or a table row.
	item = regexp.MustCompile(`^(\s*([-*+]|[0-9]+\.) |\|)`)
)

// dated lists what makes a page a notebook rather than reference, each
// as " LINE: why". Outside fenced blocks (rendered from records, which
// carry their dates and times) and HTML comments:
//
//   - a dated heading: a heading holding a date;
//   - a dated sitting: a paragraph (lines between blank lines), a list
//     item or a table row holding a time of day beside a date, the log of
//     a sitting, or the dates of more than one day, a chronicle of
//     sittings.
//
// A reference page names the one day its figure was measured, beside the
// machine (a table may give each row its own); the hour, and how the
// figures moved from day to day, belong to the record and the commit
// messages.
func dated(page string) []string {
	var bad []string
	lines := strings.Split(page, "\n")
	inFence := false
	start := -1 // the line the current paragraph began on
	var para []string
	flush := func() {
		if why := sitting(strings.Join(para, "\n")); why != "" {
			bad = append(bad, fmt.Sprintf("%d: %s", start+1, why))
		}
		para, start = nil, -1
	}
	for i, l := range lines {
		if strings.HasPrefix(l, "```") {
			flush()
			inFence = !inFence
			continue
		}
		if inFence || strings.HasPrefix(l, "<!--") {
			continue
		}
		if strings.TrimSpace(l) == "" {
			flush()
			continue
		}
		if heading.MatchString(l) {
			flush()
			if date.MatchString(l) {
				bad = append(bad, fmt.Sprintf("%d: a dated heading: %s", i+1, l))
			}
			continue
		}
		if item.MatchString(l) {
			flush() // a list item or a table row stands alone
		}
		if start < 0 {
			start = i
		}
		para = append(para, l)
	}
	flush()
	return bad
}

// sitting says why a paragraph is a dated sitting, or "" when it is not.
func sitting(para string) string {
	var days []string
	for _, m := range date.FindAllStringSubmatch(para, -1) {
		if d := day(m); !slices.Contains(days, d) {
			days = append(days, d)
		}
	}
	switch {
	case len(days) > 1:
		return fmt.Sprintf("a dated sitting: a paragraph naming %d days (%s)", len(days), strings.Join(days, ", "))
	case len(days) == 1 && clock.MatchString(para):
		return fmt.Sprintf("a dated sitting: a paragraph naming a time of day (%s) on %s", clock.FindString(para), days[0])
	}
	return ""
}

// day is a date match as "month day", the month as its first three
// letters or its number.
func day(m []string) string {
	switch {
	case m[1] != "":
		return m[2][:3] + " " + strings.TrimLeft(m[1], "0")
	case m[4] != "":
		return m[3][:3] + " " + strings.TrimLeft(m[4], "0")
	}
	months := []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
	var n int
	fmt.Sscan(strings.TrimLeft(m[5], "0"), &n)
	if n < 1 || n > 12 {
		return m[5] + " " + m[6]
	}
	return months[n-1] + " " + strings.TrimLeft(m[6], "0")
}

// TestDated: the rule finds dated headings and sittings, and leaves alone
// a figure that names its day, a record's name, and what fenced blocks and
// comments hold.
func TestDated(t *testing.T) {
	for _, c := range []struct {
		page string
		want []string
	}{
		{"# Speed\n\n## Intel Xeon VM, 3 December 2026\n", []string{"3: a dated heading: ## Intel Xeon VM, 3 December 2026"}},
		{"### Dec 4: a sitting\n", []string{"1: a dated heading: ### Dec 4: a sitting"}},
		{"## 2026-12-04\n", []string{"1: a dated heading: ## 2026-12-04"}},
		{"text\n\nOn 3 December 2026 the table\nfailed; on 4 December it passed.\n", []string{"3: a dated sitting: a paragraph naming 2 days (Dec 3, Dec 4)"}},
		{"One sitting from 22:51 UTC, 3 December 2026:\n", []string{"1: a dated sitting: a paragraph naming a time of day (22:51) on Dec 3"}},
		{"On 2026-12-03 and on December 3 it ran.\n", nil},                         // one day, however written
		{"On an Intel Xeon VM, 1 December 2026:\n\nthen 2 December\n", nil},        // one day a paragraph
		{"The record results/x-xeon-2026-12-05.json, of 1 December 2026\n", nil},   // a record's name is no date
		{"## The default table\n\n<!-- rendered from a-2026-12-03.txt -->\n", nil}, // comments are not read
		{"```text\n2026-12-03 22:51  Intel Xeon\n2026-12-05 18:02  AMD EPYC\n```\n", nil},
		{"A ratio 1:10, with no date.\n", nil},
	} {
		if got := dated(c.page); !slices.Equal(got, c.want) {
			t.Errorf("dated(%q) = %q, want %q", c.page, got, c.want)
		}
	}
}
