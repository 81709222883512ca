package profile

import (
	"fmt"
	"io"
	"strings"
	"time"

	pprof "github.com/google/pprof/profile"
)

// TopRows is how many symbols the table after a profiled run shows, as many
// as the seeds' oprofile tables.
const TopRows = 20

// WriteSavedTop writes the top table of a profile saved after a run.
func WriteSavedTop(w io.Writer, s Saved) error {
	what := "Go CPU profile (this process"
	if s.Kind == Kernel {
		what = "kernel and user stacks (perf"
	}
	return writeTop(w, fmt.Sprintf("%s, %s): %s", what, Period(s.Profile), s.Path), s.Profile, TopRows, "")
}

// WriteFileTop writes the top table of the profile read from path (pipebench
// top): its rows most sampled symbols, counting only the samples of role
// when it is not empty.
func WriteFileTop(w io.Writer, path string, p *pprof.Profile, rows int, role string) error {
	return writeTop(w, path+" ("+Period(p)+")", p, rows, role)
}

// Period says what one sample stands for: "cpu-clock every 250µs".
func Period(p *pprof.Profile) string {
	if p.PeriodType == nil || p.Period == 0 {
		return "no sampling period"
	}
	if p.PeriodType.Unit == "nanoseconds" {
		return fmt.Sprintf("%s every %v", p.PeriodType.Type, time.Duration(p.Period))
	}
	return fmt.Sprintf("%s every %d %s", p.PeriodType.Type, p.Period, p.PeriodType.Unit)
}

// writeTop writes the table oprofile printed: the symbols the samples were
// taken in, with their samples and share, after a line that sums the
// profile up by role and by kernel against user space.
func writeTop(w io.Writer, title string, p *pprof.Profile, rows int, role string) error {
	index, err := SampleIndex(p, "samples")
	if err != nil {
		return err
	}
	var match Match
	if role != "" {
		match = LabelIs("role", role)
	}
	flat := Flat(p, index, match)
	if role != "" {
		title += ", role " + role
	}
	fmt.Fprintf(w, "--- %s\n", title)
	fmt.Fprintf(w, "%d samples", flat.Total)
	if byRole := ByLabel(p, index, "role", match); len(byRole.Rows) > 1 || (len(byRole.Rows) == 1 && byRole.Rows[0].Name != "") {
		fmt.Fprintf(w, "; by role %s", shares(byRole))
	}
	var kernel float64
	for _, r := range ByLeafSpace(p, index, match).Rows {
		if r.Name == KernelSpace {
			kernel = r.Share
		}
	}
	if kernel > 0 {
		fmt.Fprintf(w, "; in the kernel %.1f%%", 100*kernel)
	}
	fmt.Fprintln(w)
	width := len(flat.SampleType)
	if len(flat.Rows) > 0 {
		width = max(width, len(fmt.Sprint(flat.Rows[0].Value)))
	}
	fmt.Fprintf(w, "%-*s  %-8s %s\n", width, flat.SampleType, "%", "symbol name")
	for _, r := range flat.Rows[:min(rows, len(flat.Rows))] {
		fmt.Fprintf(w, "%-*d  %-8.4f %s\n", width, r.Value, 100*r.Share, r.Name)
	}
	_, err = fmt.Fprintln(w)
	return err
}

// shares formats a table's rows as "reader 48.1%, writer 40.2%".
func shares(t Table) string {
	parts := make([]string, len(t.Rows))
	for i, r := range t.Rows {
		name := r.Name
		if name == "" {
			name = "unlabelled"
		}
		parts[i] = fmt.Sprintf("%s %.1f%%", name, 100*r.Share)
	}
	return strings.Join(parts, ", ")
}
