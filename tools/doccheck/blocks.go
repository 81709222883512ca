package doccheck

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Block is one rendered block of a page.
type Block struct {
	// Line is the marker's line number, from 1.
	Line int
	// From is the record a "rendered from" block re-renders; First and
	// Last the lines of its text kept (0: all).
	From        string
	First, Last int
	// By is the command a "rendered by" block runs, split into words.
	By []string
	// AtRoot says the command is the block's own first line ("$ pipebench
	// ..."), run in the repository's root, its paths from there; the
	// block's Text is what follows that line.
	AtRoot bool
	// Text is the block's content as the page holds it; start and end
	// are its byte offsets in the page.
	Text       string
	start, end int
}

var (
	marker = regexp.MustCompile(`(?m)^<!-- rendered (from|by:) (.+?) -->\n`)
	// prompt is a fenced block whose first line is the command that
	// printed it.
	prompt = regexp.MustCompile("(?m)^```text\n\\$ (pipebench [^\n]+)\n")
)

const fence = "```"

// Blocks finds the rendered blocks of page, in the order they stand. A
// marker must be followed by a fenced block (a line "```text", the text,
// a line "```"); a fenced block whose first line is "$ pipebench ARGS"
// holds what that command prints, run in the repository's root.
func Blocks(page string) ([]Block, error) {
	var bs []Block
	for _, m := range marker.FindAllStringSubmatchIndex(page, -1) {
		b := Block{Line: line(page, m[0])}
		kind, spec := page[m[2]:m[3]], page[m[4]:m[5]]
		if kind == "from" {
			if err := b.parseFrom(spec); err != nil {
				return nil, fmt.Errorf("line %d: %w", b.Line, err)
			}
		} else {
			b.By = strings.Fields(spec)
			if !allowed(b.By) {
				return nil, fmt.Errorf("line %d: %q: want a pipebench compare or top, go tool pprof or compare.sh -summary or -history command", b.Line, spec)
			}
		}
		open := fence + "text\n"
		if !strings.HasPrefix(page[m[1]:], open) {
			return nil, fmt.Errorf("line %d: the marker is not followed by a %q line", b.Line, strings.TrimSpace(open))
		}
		if err := b.body(page, m[1]+len(open)); err != nil {
			return nil, err
		}
		bs = append(bs, b)
	}
	for _, m := range prompt.FindAllStringSubmatchIndex(page, -1) {
		b := Block{Line: line(page, m[0]), By: strings.Fields(page[m[2]:m[3]]), AtRoot: true}
		if !allowed(b.By) {
			return nil, fmt.Errorf("line %d: %q: want a pipebench compare or top command", b.Line, page[m[2]:m[3]])
		}
		if err := b.body(page, m[1]); err != nil {
			return nil, err
		}
		bs = append(bs, b)
	}
	slices.SortFunc(bs, func(a, b Block) int { return a.start - b.start })
	return bs, nil
}

// line is the line number, from 1, of byte offset at of page.
func line(page string, at int) int { return 1 + strings.Count(page[:at], "\n") }

// body sets b's text to the page's from offset start to the block's
// closing fence line.
func (b *Block) body(page string, start int) error {
	rest := page[start:]
	// The closing line may be the first: an empty block.
	end := strings.Index("\n"+rest, "\n"+fence+"\n")
	if end < 0 {
		return fmt.Errorf("line %d: the block has no closing %s line", b.Line, fence)
	}
	b.Text = rest[:end]
	b.start = start
	b.end = start + end
	return nil
}

func (b *Block) parseFrom(spec string) error {
	path, lines, ok := strings.Cut(spec, ", lines ")
	b.From = strings.TrimSpace(path)
	if !ok {
		return nil
	}
	a, z, ok := strings.Cut(lines, "-")
	first, err1 := strconv.Atoi(a)
	last, err2 := strconv.Atoi(z)
	if !ok || err1 != nil || err2 != nil || first < 1 || last < first {
		return fmt.Errorf("lines %q: want lines A-B, 1 <= A <= B", lines)
	}
	b.First, b.Last = first, last
	return nil
}

// allowed says whether a block may run words: commands that read records
// and measure nothing: pipebench compare or top, go tool pprof, or
// compare.sh's judgements of kept tables (-summary, -history).
func allowed(words []string) bool {
	switch {
	case len(words) >= 2 && words[0] == "pipebench" && (words[1] == "compare" || words[1] == "top"):
		return true
	case len(words) >= 4 && words[0] == "go" && words[1] == "tool" && words[2] == "pprof":
		return true
	case len(words) >= 3 && path.Base(words[0]) == "compare.sh" && path.Base(path.Dir(words[0])) == "yardstick" && (words[1] == "-summary" || words[1] == "-history"):
		return true
	}
	return false
}

// Lines keeps lines first to last (from 1) of text; all of it when first
// is 0.
func Lines(text string, first, last int) (string, error) {
	if first == 0 {
		return text, nil
	}
	ls := strings.SplitAfter(text, "\n")
	if last > len(ls) {
		return "", fmt.Errorf("lines %d-%d of a text of %d lines", first, last, len(ls))
	}
	return strings.Join(ls[first-1:last], ""), nil
}

// Replace returns page with every block's text replaced by texts[i].
func Replace(page string, bs []Block, texts []string) string {
	var out strings.Builder
	at := 0
	for i, b := range bs {
		out.WriteString(page[at:b.start])
		out.WriteString(texts[i])
		at = b.end
	}
	out.WriteString(page[at:])
	return out.String()
}
