package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	pprofile "github.com/google/pprof/profile"

	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/stats/profile"
)

func init() {
	subcommands["top"] = subcommand{
		summary: "print the top symbols of a saved profile (-cpuprofile, -kprofile)",
		run:     topCommand,
	}
}

// topCommand is pipebench top [-rows N] [-role R] FILE.
func topCommand(args []string, stdout, stderr io.Writer, _ <-chan struct{}) int {
	fs := flag.NewFlagSet("pipebench top", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	rows := topRows
	fs.Var(intFlag{&rows, 1, 1000000, "rows"}, "rows", "symbols to show")
	roles := []string{pipebench.RoleReader, pipebench.RoleWriter, pipebench.RoleSelf, profile.OtherRole}
	role := new(string)
	fs.Var(choiceFlag{role, func(s string) error {
		if !slices.Contains(roles, s) {
			return fmt.Errorf("unknown role %q: want %s", s, strings.Join(roles, ", "))
		}
		return nil
	}}, "role", "count only the samples of this role: "+strings.Join(roles, ", "))
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stdout, "usage: pipebench top [-rows N] [-role ROLE] FILE\n\nPrints the symbols in which a profile's samples were taken (flat, self time), as oprofile did.\n\n")
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return exitOK
		}
		return usageError(stderr, fmt.Errorf("top: %w", err))
	}
	if fs.NArg() != 1 {
		return usageError(stderr, errors.New("top takes one profile file: pipebench top [-rows N] [-role ROLE] FILE"))
	}
	path := fs.Arg(0)
	f, err := os.Open(path)
	if err != nil {
		return usageError(stderr, fmt.Errorf("top: %w", err))
	}
	prof, err := pprofile.Parse(f)
	f.Close()
	if err != nil {
		return usageError(stderr, fmt.Errorf("top: %s is not a pprof profile: %w", path, err))
	}
	if err := printTop(stdout, path+" ("+describePeriod(prof)+")", prof, rows, *role); err != nil {
		fmt.Fprintf(stderr, "pipebench: top: %v\n", err)
		return exitFailed
	}
	return exitOK
}

// describePeriod says what one sample stands for: "cpu-clock every 250µs".
func describePeriod(p *pprofile.Profile) string {
	if p.PeriodType == nil || p.Period == 0 {
		return "no sampling period"
	}
	if p.PeriodType.Unit == "nanoseconds" {
		return fmt.Sprintf("%s every %v", p.PeriodType.Type, time.Duration(p.Period))
	}
	return fmt.Sprintf("%s every %d %s", p.PeriodType.Type, p.Period, p.PeriodType.Unit)
}

// printTop prints the table oprofile printed: the symbols the samples were
// taken in, with their samples and share, after a line that sums the
// profile up by role and by kernel against user space.
func printTop(w io.Writer, title string, p *pprofile.Profile, rows int, role string) error {
	index, err := profile.SampleIndex(p, "samples")
	if err != nil {
		return err
	}
	var match profile.Match
	if role != "" {
		match = profile.LabelIs("role", role)
	}
	flat := profile.Flat(p, index, match)
	if role != "" {
		title += ", role " + role
	}
	fmt.Fprintf(w, "--- %s\n", title)
	fmt.Fprintf(w, "%d samples", flat.Total)
	if byRole := profile.ByLabel(p, index, "role", match); len(byRole.Rows) > 1 || (len(byRole.Rows) == 1 && byRole.Rows[0].Name != "") {
		fmt.Fprintf(w, "; by role %s", shares(byRole))
	}
	var kernel float64
	for _, r := range profile.ByLeafSpace(p, index, match).Rows {
		if r.Name == profile.KernelSpace {
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
func shares(t profile.Table) string {
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
