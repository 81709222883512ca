package sweep

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Ref is a published table to set beside a sweep, such as pipetest's token
// passes per second against pipes (2002): one x column and one or more
// series.
type Ref struct {
	// Label names the table in a legend: the "# label:" comment of the file,
	// or else the file's name without its extension.
	Label string
	// XName is the heading of the first column ("pipes", "connections").
	XName  string
	Series []RefSeries
}

// RefSeries is one column of a reference table; rows with an empty cell are
// left out, so X and Y have the same length.
type RefSeries struct {
	Name string
	X, Y []float64
}

// ReadRef reads a reference table from a CSV file. The format:
//
//	# lines starting with # are comments; name the source here
//	# label: pipetest 2002
//	pipes,sys_epoll 0.9,sys_epoll 0.14,poll()
//	10,289160,285510,98469
//	100,283463,283948,16514
//
// The first row is the header. The first column is x: numbers >= 0 in
// strictly increasing order. Every other column is a series of positive
// numbers; an empty cell is a value that was not published. Errors name the
// file and the line.
func ReadRef(path string) (*Ref, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reference table: %w", err)
	}
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	ref, err := ParseRef(bytes.NewReader(b), name)
	if err != nil {
		return nil, fmt.Errorf("reference table %s: %w", path, err)
	}
	return ref, nil
}

// ParseRef reads a reference table in ReadRef's format; label is used when
// the table has no "# label:" comment.
func ParseRef(r io.Reader, label string) (*Ref, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	ref := &Ref{Label: refLabel(b, label)}
	cr := csv.NewReader(bytes.NewReader(b))
	cr.Comment = '#'
	cr.TrimLeadingSpace = true
	if err := ref.readHeader(cr); err != nil {
		return nil, err
	}
	if err := ref.readRows(cr); err != nil {
		return nil, err
	}
	for _, s := range ref.Series {
		if len(s.Y) == 0 {
			return nil, fmt.Errorf("column %q has no value", s.Name)
		}
	}
	return ref, nil
}

// refLabel is the table's "# label:" comment, or label.
func refLabel(b []byte, label string) string {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if l, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "#"); ok {
			if v, ok := strings.CutPrefix(strings.TrimSpace(l), "label:"); ok {
				label = strings.TrimSpace(v)
			}
		}
	}
	return label
}

// readHeader reads the header: the x column's name, then a series per
// column.
func (ref *Ref) readHeader(cr *csv.Reader) error {
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("no header: want a line such as pipes,epoll,poll")
	}
	if err != nil {
		return err
	}
	if len(header) < 2 {
		line, _ := cr.FieldPos(0)
		return fmt.Errorf("line %d: the header has %d column(s): want x and at least one series, such as pipes,epoll,poll", line, len(header))
	}
	ref.XName = strings.TrimSpace(header[0])
	for i, h := range header {
		h = strings.TrimSpace(h)
		line, _ := cr.FieldPos(i)
		switch {
		case h == "":
			return fmt.Errorf("line %d: column %d has no name", line, i+1)
		case slices.Contains(header[:i], h):
			return fmt.Errorf("line %d: column %q appears twice", line, h)
		}
		if i > 0 {
			ref.Series = append(ref.Series, RefSeries{Name: h})
		}
	}
	return nil
}

// readRows reads the rows, x in increasing order, each series' cell a
// positive number or empty.
func (ref *Ref) readRows(cr *csv.Reader) error {
	prev := math.Inf(-1)
	rows := 0
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		rows++
		line, _ := cr.FieldPos(0)
		x, err := strconv.ParseFloat(strings.TrimSpace(rec[0]), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return fmt.Errorf("line %d: %s %q: want a number >= 0", line, ref.XName, rec[0])
		}
		if x <= prev {
			return fmt.Errorf("line %d: %s %v after %v: want %s in increasing order", line, ref.XName, x, prev, ref.XName)
		}
		prev = x
		for i, cell := range rec[1:] {
			cell = strings.TrimSpace(cell)
			if cell == "" {
				continue
			}
			y, err := strconv.ParseFloat(cell, 64)
			if err != nil || math.IsNaN(y) || math.IsInf(y, 0) || y <= 0 {
				return fmt.Errorf("line %d: column %q: %q is not a positive number", line, ref.Series[i].Name, cell)
			}
			s := &ref.Series[i]
			s.X, s.Y = append(s.X, x), append(s.Y, y)
		}
	}
	if rows == 0 {
		return fmt.Errorf("no rows after the header")
	}
	return nil
}
