package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/pipebench/pipebench/stats/report"
	"github.com/pipebench/pipebench/stats/report/plot"
)

func init() {
	subcommands["compare"] = subcommand{
		summary: "records side by side: each figure's median and spread, the change against the first with its interval and significance",
		run:     compareCommand,
	}
}

const compareHelp = `usage: pipebench compare [-by FLAG] [-format text|markdown|csv|json] [-o FILE] [-plot FILE] A.json [B.json ...]

Reads records (the JSON of pipebench -count N -o A.json, or of pipebench
sweep, herd or timeout -count N -o A.json) and, for every configuration in every record, sets
each figure's median and the half-width of its 95% confidence interval side
by side, the first record the base: the change of every later record
against it with its 95% interval, and whether it is significant (the
Mann-Whitney U test at alpha 0.05, benchstat's), read as better or worse by
the figure's direction. What differs between the records' machines, builds
and settings is listed first. One record alone gives its medians and spread.
-by FLAG compares the values of one flag inside one record (a sweep runs
them in alternating rounds on one boot). docs/compare.md tells how many
repetitions resolve a change on a machine.

`

func compareCommand(args []string, stdout, stderr io.Writer, stop <-chan struct{}) int {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	var by, base, out, plotFile string
	format := "text"
	fs.StringVar(&by, "by", "", "compare the values of this flag inside one record: b, n, l, writers or readers of a sweep, exclusive of a herd, mechanisms or timeouts of a timeout")
	fs.StringVar(&base, "base", "", "with -by: the value whose column is the base the others are compared against (default: the first in the record)")
	fs.Var(choiceFlag{&format, func(s string) error {
		if !slices.Contains(report.CompareFormats, s) {
			return fmt.Errorf("unknown format %q: want %s", s, strings.Join(report.CompareFormats, ", "))
		}
		return nil
	}}, "format", "output format: "+strings.Join(report.CompareFormats, ", "))
	fs.StringVar(&out, "o", "", "write the output to this file instead of stdout (-format json unless given, when the name ends in .json)")
	fs.StringVar(&plotFile, "plot", "", "for sweep records: evts/sec against pipes (log-log), a curve per record and backend, each point's spread drawn, to this .svg or .png file")
	if code := parseFlags(fs, args, compareHelp, stdout, stderr); code >= 0 {
		return code
	}
	files := fs.Args()
	for _, f := range files {
		if strings.HasPrefix(f, "-") {
			return usageError(stderr, fmt.Errorf("compare: %s after the records: flags go before the files (see pipebench compare -h)", f))
		}
	}
	if len(files) == 0 {
		return usageError(stderr, fmt.Errorf("compare: no record given: want one or more JSON records (see pipebench compare -h)"))
	}
	jsonByName(fs, out, &format)
	if out != "" {
		if slices.Contains(files, out) {
			return usageError(stderr, fmt.Errorf("compare: -o %s is one of the records compared: want another file", out))
		}
		if err := checkWritable(out); err != nil {
			return usageError(stderr, fmt.Errorf("compare: -o %s: cannot write there: %w", out, err))
		}
	}
	if plotFile != "" {
		if _, err := plot.FormatOf(plotFile); err != nil {
			return usageError(stderr, fmt.Errorf("compare: -plot: %w", err))
		}
	}
	var records []*report.Loaded
	for _, f := range files {
		l, err := report.ReadRecord(f)
		if err != nil {
			return usageError(stderr, fmt.Errorf("compare: %w", err))
		}
		records = append(records, l)
	}
	if plotFile != "" && records[0].Command != "sweep" {
		return usageError(stderr, fmt.Errorf("compare: -plot draws sweep records; %s is a record of pipebench %s", records[0].Path, records[0].Command))
	}
	if base != "" && by == "" {
		return usageError(stderr, fmt.Errorf("compare: -base %s chooses among the values of -by: give -by FLAG too", base))
	}
	c, err := report.NewComparison(recordOf("compare", fs, args), records, by, base)
	if err != nil {
		return usageError(stderr, fmt.Errorf("compare: %w", err))
	}
	w := stdout
	var f *os.File
	if out != "" {
		if f, err = os.Create(out); err != nil {
			fmt.Fprintf(stderr, "pipebench: compare: -o %s: %v\n", out, err)
			return exitFailed
		}
		w = f
	}
	err = report.WriteComparison(w, format, c)
	if f != nil {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("-o %s: %w", out, cerr)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "pipebench: compare: %v\n", err)
		return exitFailed
	}
	if plotFile != "" {
		if err := plot.Save(plotFile, report.ComparisonFigure(records, by)); err != nil {
			fmt.Fprintf(stderr, "pipebench: compare: %v\n", err)
			return exitFailed
		}
		fmt.Fprintf(stderr, "compare: plot written to %s\n", plotFile)
	}
	return exitOK
}
