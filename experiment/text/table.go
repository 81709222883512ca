package text

import (
	"fmt"
	"io"
	"strings"
)

// Printer writes to W and keeps the first error, so that a table is
// written without checking every line: after the first failure it writes
// nothing more.
type Printer struct {
	W   io.Writer
	err error
}

// Printf writes as fmt.Fprintf does, unless an earlier write failed.
func (p *Printer) Printf(format string, a ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.W, format, a...)
	}
}

// Err is the first write error, or nil.
func (p *Printer) Err() error { return p.err }

// Keep records err as the printer's error when it has none yet.
func (p *Printer) Keep(err error) {
	if p.err == nil {
		p.err = err
	}
}

// Table is a block of rows laid out in columns, as text or markdown.
type Table struct {
	Head []string
	Rows [][]string
	// Right marks the right-aligned columns; the others are left-aligned.
	Right []bool
}

// WriteWidth writes the table as text no wider than width where it can:
// a table wider is cut into blocks of its columns, each block beginning
// with the first keep columns (the row's names) and a blank line between
// blocks. A block holds at least one column besides those.
func (t *Table) WriteWidth(p *Printer, width, keep int) {
	widths := t.widths()
	total := func(cols []int) int {
		n := 0
		for i, c := range cols {
			if i > 0 {
				n += 2
			}
			n += widths[c]
		}
		return n
	}
	var key []int
	for i := 0; i < keep && i < len(widths); i++ {
		key = append(key, i)
	}
	block := append([]int{}, key...)
	for c := keep; c < len(widths); c++ {
		if len(block) > len(key) && total(append(block, c)) > width {
			t.sub(block).Write(p, false)
			p.Printf("\n")
			block = append([]int{}, key...)
		}
		block = append(block, c)
	}
	t.sub(block).Write(p, false)
}

// sub is the table of columns cols alone.
func (t *Table) sub(cols []int) *Table {
	pick := func(r []string) []string {
		out := make([]string, len(cols))
		for i, c := range cols {
			if c < len(r) {
				out[i] = r[c]
			}
		}
		return out
	}
	s := &Table{Head: pick(t.Head), Right: make([]bool, len(cols))}
	for i, c := range cols {
		s.Right[i] = t.Right[c]
	}
	for _, r := range t.Rows {
		s.Rows = append(s.Rows, pick(r))
	}
	return s
}

// widths are the widths of the table's columns as text: each its widest
// cell, in runes.
func (t *Table) widths() []int {
	width := make([]int, len(t.Head))
	for _, r := range append([][]string{t.Head}, t.Rows...) {
		for i, f := range r {
			width[i] = max(width[i], len([]rune(f)))
		}
	}
	return width
}

// Write writes the table: as text, each column as wide as its widest
// cell, two spaces apart, trailing spaces trimmed; as markdown, a pipe
// table whose right-aligned columns say so.
func (t *Table) Write(p *Printer, markdown bool) {
	if markdown {
		p.Printf("| %s |\n|", strings.Join(t.Head, " | "))
		for i := range t.Head {
			if t.Right[i] {
				p.Printf("---:|")
			} else {
				p.Printf("---|")
			}
		}
		p.Printf("\n")
		for _, r := range t.Rows {
			p.Printf("| %s |\n", strings.Join(r, " | "))
		}
		return
	}
	width := t.widths()
	for _, r := range append([][]string{t.Head}, t.Rows...) {
		var b strings.Builder
		for i, f := range r {
			pad := width[i] - len([]rune(f))
			if i > 0 {
				b.WriteString("  ")
			}
			if t.Right[i] {
				b.WriteString(strings.Repeat(" ", pad) + f)
			} else if i < len(r)-1 {
				b.WriteString(f + strings.Repeat(" ", pad))
			} else {
				b.WriteString(f)
			}
		}
		p.Printf("%s\n", strings.TrimRight(b.String(), " "))
	}
}

// Width is the widest line of a text output by default: it is pasted
// into mail, which wraps at 72 to 80 columns. LabelWidth is the width of
// the label column of a summary's lines ("evts/sec       median ...").
const (
	Width      = 80
	LabelWidth = 15
)

// Wrap breaks s into lines of at most width runes at spaces, the lines
// after the first indented by four.
func Wrap(s string, width int) []string { return WrapIndent(s, width, "", "    ") }

// Fit is s as it is when it fits in width runes, else wrapped (Wrap): a
// line laid out in columns stays as it is.
func Fit(s string, width int) []string {
	if len([]rune(s)) <= width {
		return []string{s}
	}
	return Wrap(s, width)
}

// WrapIndent breaks s into lines of at most width runes at spaces, the
// first beginning with first, the later ones with rest. A word longer
// than a line is broken after its commas where it has them (a list, such
// as -b's), else stands on a line of its own.
func WrapIndent(s string, width int, first, rest string) []string {
	var lines []string
	line, lead := first, first
	for _, word := range commaWords(strings.Fields(s), width-len([]rune(rest))) {
		switch {
		case line == lead:
			line += word
		case len([]rune(line))+1+len([]rune(word)) > width:
			lines = append(lines, line)
			line, lead = rest+word, rest
		default:
			line += " " + word
		}
	}
	if line != lead {
		lines = append(lines, line)
	}
	return lines
}

// commaWords are words with each longer than width cut after a comma,
// each piece as long as fits; not a path.
func commaWords(words []string, width int) []string {
	var out []string
	for _, w := range words {
		// A path (a file name may hold a comma) is left whole.
		for len([]rune(w)) > width && strings.Contains(w, ",") && !strings.Contains(w, "/") {
			cut := strings.LastIndex(string([]rune(w)[:width]), ",")
			if cut < 0 {
				break
			}
			out = append(out, w[:cut+1])
			w = w[cut+1:]
		}
		out = append(out, w)
	}
	return out
}

// Labelled lays value out after label, padded to LabelWidth, wrapped at
// Width with the later lines indented to the value's column: a summary's
// line, "evts/sec       median 158057  sd 5693 (3.6%)". The value's
// fields, two spaces apart, stay so (Items).
func Labelled(label, value string) []string {
	return Items(label, strings.Split(value, "  "), "  ")
}

// Items lays items out after label as Labelled does, sep between them: an
// item that does not fit on the line goes whole to the next where it is
// short (at most half a line), else is broken between words.
func Items(label string, items []string, sep string) []string {
	pad := strings.Repeat(" ", LabelWidth)
	line := label + strings.Repeat(" ", max(LabelWidth-len([]rune(label)), 1))
	var lines []string
	fresh := true // nothing after the label or the indent yet
	fits := func(more string) bool { return len([]rune(line))+len([]rune(more)) <= Width }
	for _, it := range items {
		if it = strings.TrimSpace(it); it == "" {
			continue
		}
		switch {
		case fresh && fits(it) || !fresh && fits(sep+it):
		case !fresh && len([]rune(it)) <= (Width-LabelWidth)/2:
			lines = append(lines, line)
			line, fresh = pad, true
		default: // too long for a line: break it between words
			switch first := strings.Fields(it)[0]; {
			case !fresh && fits(sep+first):
				line += sep
			case !fresh:
				lines = append(lines, line)
				line = pad
			}
			ws := WrapIndent(it, Width, line, pad)
			lines = append(lines, ws[:len(ws)-1]...)
			line, fresh = ws[len(ws)-1], false
			continue
		}
		if !fresh {
			line += sep
		}
		line, fresh = line+it, false
	}
	if fresh && len(lines) > 0 {
		return lines
	}
	return append(lines, strings.TrimRight(line, " "))
}
