package doccheck

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// Link is a relative link of a page: the file it names (empty for the
// page itself) and the heading it points to (empty for none), with the
// line it is on.
type Link struct {
	Line   int
	File   string
	Anchor string
}

var (
	// target is a Markdown link's destination: "](docs/a.md#b)".
	target = regexp.MustCompile(`\]\(([^()\s]+)\)`)
	// linkText is a link inside a heading, whose text alone the anchor
	// keeps.
	linkText = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// Links lists the relative links of page outside fenced blocks and HTML
// comments: those a reader follows inside the repository. Links to the
// web (a scheme such as https:) and mail are left out.
func Links(page string) []Link {
	var ls []Link
	forEachTextLine(page, func(n int, line string) {
		for _, m := range target.FindAllStringSubmatch(line, -1) {
			dest := m[1]
			if strings.Contains(dest, ":") {
				continue // https://..., mailto:...
			}
			file, anchor, _ := strings.Cut(dest, "#")
			ls = append(ls, Link{Line: n, File: file, Anchor: anchor})
		}
	})
	return ls
}

// Anchors are the anchors GitHub gives page's headings: the heading's
// text with its links reduced to their text, lower-cased, every
// character but letters, digits, spaces, hyphens and underscores
// dropped, and each space a hyphen; a heading whose anchor is taken
// already gets "-1", "-2" and so on.
func Anchors(page string) map[string]bool {
	as := map[string]bool{}
	seen := map[string]int{}
	forEachTextLine(page, func(_ int, line string) {
		if !heading.MatchString(line) {
			return
		}
		a := Slug(strings.TrimLeft(line, "#"))
		if k := seen[a]; k > 0 {
			seen[a]++
			a += "-" + strconv.Itoa(k)
		} else {
			seen[a] = 1
		}
		as[a] = true
	})
	return as
}

// Slug is the anchor of a heading's text (see Anchors).
func Slug(text string) string {
	text = linkText.ReplaceAllString(strings.TrimSpace(text), "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// forEachTextLine calls f with each line of page (numbered from 1) that
// is outside fenced blocks and HTML comments.
func forEachTextLine(page string, f func(n int, line string)) {
	fenced, comment := false, false
	for i, line := range strings.Split(page, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "```"):
			fenced = !fenced
			continue
		case fenced:
			continue
		case comment || strings.HasPrefix(trimmed, "<!--"):
			comment = !strings.Contains(trimmed, "-->")
			continue
		}
		f(i+1, line)
	}
}
