package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/pipebench/pipebench/experiment/compare"
	"github.com/pipebench/pipebench/experiment/sweep/plot"
	cmpstat "github.com/pipebench/pipebench/stats/compare"
)

func init() {
	subcommands["compare"] = subcommand{
		summary: "records side by side: each figure's median and spread, the change against the first side with its interval and a verdict",
		run:     compareCommand,
	}
}

const compareHelp = `usage: pipebench compare [flags] A.json [B.json ...]
       pipebench compare [flags] A1.json A2.json ... vs B1.json B2.json ...

Reads records (the JSON of pipebench -count N -o A.json, or of pipebench
sweep, herd or timeout -count N -o A.json) and, for every configuration,
sets each figure's median and the half-width of its 95% confidence interval
side by side, the first side the base, with every later side's change
against it, its 95% interval and a verdict. A record is one sitting (a
boot, or a quiet window of the machine): sittings differ by more than runs
inside one do, so "vs" between several records a side judges the change
over the sittings (Welch's t on their means); with one record a side the
verdict covers only drift inside each sitting, and says so. A change is
called better or worse only when significant (alpha 0.05) and larger than
the floor. The primary figure (-metric; evts/sec by default) carries the
verdict; the others are judged after an adjustment for testing many
(Benjamini-Hochberg).
-check makes it a git bisect run oracle: exit 0 when the primary figure did
not get worse beyond the floor, 1 when it did, 125 when it cannot tell.
-by FLAG compares the values of one flag inside one record (a sweep runs
them in alternating rounds on one boot). docs/compare.md tells how many
sittings and runs resolve a change on a machine.

`

// compareFlags are compare's settings.
type compareFlags struct {
	by, base, out, plotFile, metric string
	format                          string
	floor                           float64
	check                           bool
}

// floorFlag is -floor: a percentage from 0 to 100, "2%" or "2".
type floorFlag struct{ v *float64 }

func (f floorFlag) String() string {
	if f.v == nil {
		return ""
	}
	return strconv.FormatFloat(100**f.v, 'g', -1, 64) + "%"
}

func (f floorFlag) Set(s string) error {
	x, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil || math.IsNaN(x) || x < 0 || x >= 100 {
		return fmt.Errorf("want a percentage of at least 0 and under 100, such as 2%% (the least change called better or worse)")
	}
	*f.v = x / 100
	return nil
}

func compareCommand(args []string, stdout, stderr io.Writer, stop <-chan struct{}) int {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	cf := compareFlags{format: "text", floor: cmpstat.DefaultFloor}
	fs.StringVar(&cf.by, "by", "", "compare the values of this flag inside one record: b, n, l, writers or readers of a sweep, exclusive of a herd, mechanisms or timeouts of a timeout")
	fs.StringVar(&cf.base, "base", "", "with -by: the value whose column is the base the others are compared against (default: the first in the record)")
	fs.Var(choiceFlag{&cf.format, func(s string) error {
		if !slices.Contains(compare.Formats, s) {
			return fmt.Errorf("unknown format %q: want %s", s, strings.Join(compare.Formats, ", "))
		}
		return nil
	}}, "format", "output format: "+strings.Join(compare.Formats, ", "))
	fs.StringVar(&cf.out, "o", "", "write the output to this file instead of stdout (-format json unless given, when the name ends in .json)")
	fs.StringVar(&cf.plotFile, "plot", "", "for sweep records: evts/sec against pipes (log-log), a curve per side and backend, each point's spread drawn, to this .svg or .png file")
	fs.StringVar(&cf.metric, "metric", "", "the figure that carries the verdict, named as the tables print it (default: evts/sec; a timeout's first overshoot)")
	fs.Var(floorFlag{&cf.floor}, "floor", "the least change called better or worse, as a percentage; with several records a side, the figure's spread between them where larger")
	fs.BoolVar(&cf.check, "check", false, "for git bisect run: exit 0 when the primary figure did not get worse beyond the floor, 1 when it did, 125 when too few runs or sittings tell")
	if code := parseFlags(fs, args, compareHelp, stdout, stderr); code >= 0 {
		return code
	}
	sides, err := compareSides(fs.Args())
	if err == nil {
		err = cf.checkArgs(fs, sides)
	}
	if err != nil {
		return usageError(stderr, fmt.Errorf("compare: %w", err))
	}
	loaded, labels, err := readSides(sides)
	if err != nil {
		return usageError(stderr, fmt.Errorf("compare: %w", err))
	}
	if cf.plotFile != "" && loaded[0][0].Command != "sweep" {
		return usageError(stderr, fmt.Errorf("compare: -plot draws sweep records; %s is a record of pipebench %s", loaded[0][0].Path, loaded[0][0].Command))
	}
	c, err := compare.New(recordOf("compare", fs, args), loaded, compare.Options{By: cf.by, Base: cf.base, Metric: cf.metric, Floor: cf.floor})
	if err != nil {
		return usageError(stderr, fmt.Errorf("compare: %w", err))
	}
	if cf.check && len(c.Sides) < 2 {
		return usageError(stderr, fmt.Errorf("compare: -check judges a change: give two sides (records, or a -by flag's values)"))
	}
	if code := cf.write(c, loaded, labels, stdout, stderr); code != exitOK || !cf.check {
		return code
	}
	return checkExit(c.Check(), stderr)
}

// compareSides splits the files into sides at each "vs"; without one,
// each file is a side. A side with no record is refused, as is a flag
// among the files.
func compareSides(files []string) ([][]string, error) {
	for _, f := range files {
		if strings.HasPrefix(f, "-") {
			return nil, fmt.Errorf("%s after the records: flags go before the files (see pipebench compare -h)", f)
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no record given: want one or more JSON records (see pipebench compare -h)")
	}
	if !slices.Contains(files, "vs") {
		var sides [][]string
		for _, f := range files {
			sides = append(sides, []string{f})
		}
		return sides, nil
	}
	var sides [][]string
	side := []string{}
	for i, f := range append(slices.Clone(files), "vs") {
		if f != "vs" {
			side = append(side, f)
			continue
		}
		if len(side) == 0 {
			where := fmt.Sprintf("side %d", len(sides)+1)
			if i == len(files) {
				where = "the last side"
			}
			return nil, fmt.Errorf("%s has no record: want records on both sides of each vs (A1.json A2.json vs B1.json B2.json)", where)
		}
		sides, side = append(sides, side), []string{}
	}
	return sides, nil
}

// checkArgs refuses the combinations of flags and sides that make no sense,
// before any file is read.
func (cf *compareFlags) checkArgs(fs *flag.FlagSet, sides [][]string) error {
	files := slices.Concat(sides...)
	jsonByName(fs, cf.out, &cf.format)
	switch {
	case cf.base != "" && cf.by == "":
		return fmt.Errorf("-base %s chooses among the values of -by: give -by FLAG too", cf.base)
	case cf.out != "" && slices.Contains(files, cf.out):
		return fmt.Errorf("-o %s is one of the records compared: want another file", cf.out)
	}
	if cf.out != "" {
		if err := checkWritable(cf.out); err != nil {
			return fmt.Errorf("-o %s: cannot write there: %w", cf.out, err)
		}
	}
	if cf.plotFile != "" {
		if _, err := plot.FormatOf(cf.plotFile); err != nil {
			return fmt.Errorf("-plot: %w", err)
		}
	}
	return nil
}

// readSides reads every side's records, and labels each record with its
// side's letter (the plot's curves).
func readSides(sides [][]string) ([][]*compare.Loaded, []string, error) {
	var loaded [][]*compare.Loaded
	var labels []string
	for i, side := range sides {
		var ls []*compare.Loaded
		for _, f := range side {
			l, err := compare.ReadRecord(f)
			if err != nil {
				return nil, nil, err
			}
			ls = append(ls, l)
			labels = append(labels, string(rune('A'+i%26)))
		}
		loaded = append(loaded, ls)
	}
	return loaded, labels, nil
}

// write writes the comparison to -o or stdout, and the plot.
func (cf *compareFlags) write(c *compare.Comparison, loaded [][]*compare.Loaded, labels []string, stdout, stderr io.Writer) int {
	w := stdout
	var f *os.File
	var err error
	if cf.out != "" {
		if f, err = os.Create(cf.out); err != nil {
			fmt.Fprintf(stderr, "pipebench: compare: -o %s: %v\n", cf.out, err)
			return exitFailed
		}
		w = f
	}
	err = compare.Write(w, cf.format, c)
	if f != nil {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("-o %s: %w", cf.out, cerr)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "pipebench: compare: %v\n", err)
		return exitFailed
	}
	if cf.plotFile != "" {
		if err := plot.Save(cf.plotFile, compare.Figure(slices.Concat(loaded...), labels, cf.by)); err != nil {
			fmt.Fprintf(stderr, "pipebench: compare: %v\n", err)
			return exitFailed
		}
		fmt.Fprintf(stderr, "compare: plot written to %s\n", cf.plotFile)
	}
	return exitOK
}

// exitSkip is git bisect run's "cannot test this commit".
const exitSkip = 125

// checkExit says -check's answer on stderr and returns its exit status.
func checkExit(ch compare.Check, stderr io.Writer) int {
	code := map[compare.CheckStatus]int{compare.CheckOK: exitOK, compare.CheckWorse: exitFailed, compare.CheckUnknown: exitSkip}[ch.Status]
	fmt.Fprintf(stderr, "compare -check: %s: %s (exit %d)\n", ch.Status, ch.Why, code)
	return code
}
