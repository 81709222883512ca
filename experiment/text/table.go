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
	all := append([][]string{t.Head}, t.Rows...)
	width := make([]int, len(t.Head))
	for _, r := range all {
		for i, f := range r {
			width[i] = max(width[i], len([]rune(f)))
		}
	}
	for _, r := range all {
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

// Wrap breaks s into lines of at most width runes at spaces, the lines
// after the first indented by four.
func Wrap(s string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		switch {
		case line == "":
			line = word
		case len([]rune(line))+1+len([]rune(word)) > width:
			lines = append(lines, line)
			line = "    " + word
		default:
			line += " " + word
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
