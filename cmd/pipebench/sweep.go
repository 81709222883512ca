package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/pipebench/pipebench/experiment/sweep"
	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/stats/report/plot"
)

func init() {
	subcommands["sweep"] = subcommand{
		summary: "every backend x pipes (x tokens in flight): a table of median evts/sec, ratios, a plot",
		run:     sweepCommand,
	}
}

const sweepHelp = `usage: pipebench sweep [-b LIST] [-n LIST] [-l LIST] [-plot FILE.svg|.png [-ref FILE.csv]] [flags]

One fresh run for every backend x pipes x tokens-in-flight combination, with
the run flags below, then a table: rows = pipes, columns = backends, cells =
median evts/sec after warm-up, and ratio columns (the last backend over each
other one unless -ratios says). A point over the descriptor limit is listed
as skipped and the sweep goes on. The writer is self by default (pipetest's
one thread, and the same writer at every point). The defaults take about a
minute.

`

// Sweep defaults: three seconds a point, fifteen points. 9995 is the most
// pipes every backend fits with -writer self under a hard limit of 20000.
const (
	sweepBackends = "poll,select,epoll"
	sweepPipes    = "10,100,1000,5000,9995"
	sweepInFlight = "1"
	sweepDuration = 3 * time.Second
	sweepInterval = 500 * time.Millisecond
	sweepWriter   = "self"
)

// runPoint measures one point; tests replace it to make a run fail.
var runPoint = pipebench.Run

// sweepFlags are pipebench sweep's own flags; the run flags come from
// runFlags.
type sweepFlags struct {
	backends          []string
	pipes, inFlight   []int
	format, plot, ref string
	ratios            string
}

func (sf *sweepFlags) register(fs *flag.FlagSet) {
	fs.Var(newListFlag(&sf.backends, sweepBackends, func(s string) (string, error) { return s, checkBackend(s) }),
		"b", "backends, comma-separated: "+backendNames())
	fs.Var(newListFlag(&sf.pipes, sweepPipes, intItem(1, maxPipes, "pipes")), "n", "pipes, comma-separated")
	fs.Var(newListFlag(&sf.inFlight, sweepInFlight, intItem(0, pipebench.MaxInFlight, "tokens")), "l", "tokens in flight, comma-separated (0 = unbounded writer)")
	formatFlag(fs, &sf.format)
	fs.StringVar(&sf.plot, "plot", "", "draw evts/sec against pipes (log-log) to this .svg or .png file")
	fs.StringVar(&sf.ref, "ref", "", "reference table (CSV, see testdata/README.md) drawn on the plot; every curve is then divided by its first point")
	fs.StringVar(&sf.ratios, "ratios", "", "ratio columns such as epoll/poll,epoll/select (default: the last backend over each other one)")
}

func sweepCommand(args []string, stdout, stderr io.Writer, stop <-chan struct{}) int {
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	var sf sweepFlags
	sf.register(fs)
	var rf runFlags
	rf.register(fs, "b", "n", "l", "f")
	rf.duration, rf.interval, rf.writer = sweepDuration, sweepInterval, sweepWriter
	fs.Lookup("d").DefValue, fs.Lookup("i").DefValue, fs.Lookup("writer").DefValue = sweepDuration.String(), sweepInterval.String(), sweepWriter
	if code := parseSub(fs, args, sweepHelp, stdout, stderr); code >= 0 {
		return code
	}
	bad := func(format string, a ...any) int { return usageError(stderr, fmt.Errorf("sweep: "+format, a...)) }
	if rf.duration == 0 {
		return bad("-d 0 runs until interrupted: a sweep needs a duration per point, such as -d 3s")
	}
	ratios := sweep.DefaultRatios(sf.backends)
	if sf.ratios != "" {
		rs, err := sweep.ParseRatios(sf.ratios, sf.backends)
		if err != nil {
			return bad("-ratios: %v", err)
		}
		ratios = rs
	}
	var ref *sweep.Ref
	if sf.ref != "" {
		if sf.plot == "" {
			return bad("-ref %s is drawn on the plot: give -plot FILE.svg or FILE.png too", sf.ref)
		}
		r, err := sweep.ReadRef(sf.ref)
		if err != nil {
			return bad("-ref: %v", err)
		}
		ref = r
	}
	cleanup, err := checkPlotFile(sf.plot)
	if err != nil {
		return bad("-plot: %v", err)
	}
	grid := sweep.Grid{Backends: sf.backends, Pipes: sf.pipes, InFlight: sf.inFlight}
	set := map[string]bool{"b": true}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var jobs []sweep.Job
	for _, k := range grid.Keys() {
		rf.backend, rf.pipes, rf.inFlight = k.Backend, k.Pipes, k.InFlight
		cfg, err := rf.config(set)
		if err != nil {
			cleanup()
			return bad("%s: %v", k, err)
		}
		jobs = append(jobs, sweep.Job{Key: k, Config: cfg})
	}

	fmt.Fprintf(stderr, "sweep: %d points, -d %v each\n", len(jobs), rf.duration)
	progress := sweep.NewProgress(stderr, sweep.IsTerminal(stderr), len(jobs), rf.duration+200*time.Millisecond)
	res, runErr := sweep.Run(grid, jobs, sweep.Options{Warmup: rf.warmup, Stop: stop, OnEvent: progress.Event, Run: runPoint})
	progress.Close()
	fmt.Fprintf(stderr, "sweep: %d measured, %d skipped in %v\n", len(res.Points), len(res.Skipped), res.Elapsed.Round(time.Second))

	code := exitOK
	if err := sweep.Write(stdout, sf.format, res, ratios); err != nil {
		fmt.Fprintf(stderr, "pipebench: sweep: %v\n", err)
		code = exitFailed
	}
	if sf.plot != "" {
		if len(res.Points) == 0 {
			cleanup()
			fmt.Fprintf(stderr, "sweep: no point measured, no plot drawn\n")
		} else if err := plot.Save(sf.plot, plot.FromSweep(res, ref)); err != nil {
			fmt.Fprintf(stderr, "pipebench: sweep: %v\n", err)
			code = exitFailed
		} else {
			fmt.Fprintf(stderr, "sweep: plot written to %s\n", sf.plot)
		}
	}
	if res.Interrupted {
		fmt.Fprintf(stderr, "sweep: interrupted after %d of %d points\n", len(res.Points)+len(res.Skipped), len(jobs))
	}
	if runErr != nil {
		fmt.Fprintf(stderr, "pipebench: sweep: %v\n", runErr)
		return exitFailed
	}
	return code
}

// checkPlotFile makes sure that the plot can be written, before a sweep of
// minutes: the name must end in .svg or .png and the file must open for
// writing. The file is closed at once (a sweep at the descriptor limit has
// none to spare); cleanup removes it again if this check created it.
func checkPlotFile(path string) (cleanup func(), err error) {
	cleanup = func() {}
	if path == "" {
		return cleanup, nil
	}
	if _, err := plot.FormatOf(path); err != nil {
		return cleanup, err
	}
	_, statErr := os.Stat(path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return cleanup, err
	}
	f.Close()
	if os.IsNotExist(statErr) {
		cleanup = func() { os.Remove(path) }
	}
	return cleanup, nil
}

// listFlag is a comma-separated list whose every item is parsed on its own;
// an empty item or one given twice is refused.
type listFlag[T any] struct {
	v     *[]T
	parse func(string) (T, error)
}

func newListFlag[T any](v *[]T, def string, parse func(string) (T, error)) listFlag[T] {
	f := listFlag[T]{v, parse}
	if err := f.Set(def); err != nil {
		panic(fmt.Sprintf("default %q: %v", def, err)) // a constant of this file
	}
	return f
}

func (f listFlag[T]) String() string {
	if f.v == nil {
		return ""
	}
	items := make([]string, len(*f.v))
	for i, x := range *f.v {
		items[i] = fmt.Sprint(x)
	}
	return strings.Join(items, ",")
}

func (f listFlag[T]) Set(s string) error {
	var out []T
	seen := map[string]bool{}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		switch {
		case item == "":
			return fmt.Errorf("empty item: want a comma-separated list with no empty item")
		case seen[item]:
			return fmt.Errorf("%s is listed twice", item)
		}
		seen[item] = true
		x, err := f.parse(item)
		if err != nil {
			return err
		}
		out = append(out, x)
	}
	*f.v = out
	return nil
}

// intItem parses one number of a list with intFlag's range and message.
func intItem(lo, hi int, what string) func(string) (int, error) {
	return func(s string) (int, error) {
		var n int
		if err := (intFlag{&n, lo, hi, what}).Set(s); err != nil {
			return 0, fmt.Errorf("%q: %w", s, err)
		}
		return n, nil
	}
}
