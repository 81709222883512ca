package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/pipebench/pipebench/experiment/sweep"
	"github.com/pipebench/pipebench/experiment/sweep/plot"
	"github.com/pipebench/pipebench/pipebench"
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
as skipped and the sweep goes on. The writer is self by default (one thread that reads
and forwards every token, and the same writer at every point). -count N
measures every point N times, in rounds each in an order of its own. The defaults take about a
minute.

Under the table: where each two curves cross (every two backends, and with
several -l every two -l values of a backend), between which pipe counts, where
by interpolation on the log scale, and, with -count 2 or more, a 95% interval
or "not resolved". -refine 1.25 then adds points inside each crossing's
bracket until its ends are within a factor 1.25 (at most 32 points, each run
-count times).

-rate LIST makes the sweep open loop: every point offers a fixed load, a writer
sending tokens on a schedule (as the run's -rate), and the table has a row per
backend and rate: tokens/s received, CPU per event, idle CPU, involuntary
context switches per second, and with -latency the p99 from each token's
scheduled send; ! marks a point past saturation. A rate is tokens per second
(370000, 370k, 1.5M), or a share of saturation (50% or 0.5x; every item of one
kind): each configuration's saturation is then measured first, by an unbounded
writer (-l 0). The writer is thread unless -writer says (self cannot pace);
-l other than 0, -refine, -ref, -ratios and -unit are refused. -plot draws
latency (p50, p99, p99.9) and CPU per event against the offered load, each
backend's saturation marked.

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

// runPoint measures one prepared point; tests replace it to make a run
// fail.
var runPoint = (*pipebench.Prepared).Run

// sweepFlags are pipebench sweep's own flags; the run flags come from
// runFlags.
type sweepFlags struct {
	backends         []string
	pipes, inFlight  []int
	writers, readers []int
	pipesPer         string
	unit             string
	plot, ref        string
	ratios           string
	out              docOutput
	count            int
	refine           float64
	// rates are -rate's list: tokens per second, or with ofSaturation
	// shares of each configuration's saturation.
	rates        []float64
	ofSaturation bool
}

// refineBudget is the most points -refine adds, each run -count times: a
// crossing between pipe counts a factor 10 apart takes 8 to come within
// 1.25, so 32 narrow four such.
const refineBudget = 32

func (sf *sweepFlags) register(fs *flag.FlagSet) {
	fs.Var(newListFlag(&sf.backends, sweepBackends, listFlag[string]{parse: func(s string) (string, error) { return s, checkBackend(s) }}),
		"b", "backends, comma-separated: "+backendNames())
	fs.Var(newListFlag(&sf.pipes, sweepPipes, listFlag[int]{parse: intItem(1, maxPipes, "pipes")}), "n", "pipes, comma-separated")
	fs.Var(newListFlag(&sf.inFlight, sweepInFlight, listFlag[int]{parse: intItem(0, pipebench.MaxInFlight, "tokens")}), "l", "tokens in flight, comma-separated (0 = unbounded writer)")
	fs.Var(newListFlag(&sf.writers, "1", listFlag[int]{parse: intItem(1, pipebench.MaxThreads, "writer threads")}), "writers", "writer threads, comma-separated: a column of the table when several (stress-epoll's producers)")
	fs.Var(newListFlag(&sf.readers, "1", listFlag[int]{parse: intItem(1, pipebench.MaxThreads, "reader threads")}), "readers", "reader threads, comma-separated: a column of the table when several (perf bench epoll wait's -t)")
	sf.pipesPer = "all"
	fs.Var(choiceFlag{&sf.pipesPer, func(s string) error {
		if s != "all" && s != "writer" && s != "reader" {
			return fmt.Errorf("want all (-n is the pipes of a point), writer (-n per writer) or reader (-n per reader)")
		}
		return nil
	}}, "pipes-per", "what -n counts: all (a point's pipes), writer (per writer: stress-epoll's -n 1, one eventfd per producer) or reader (per reader: perf bench's -f 64)")
	sf.unit = "sec"
	fs.Var(choiceFlag{&sf.unit, func(s string) error {
		if s != "sec" && s != "ms" {
			return fmt.Errorf("want sec (evts/sec) or ms (evts/ms, stress-epoll's unit)")
		}
		return nil
	}}, "unit", "the table's unit: sec (evts/sec) or ms (evts/ms)")
	sf.out.register(fs)
	sf.count = 1
	fs.Var(intFlag{&sf.count, 1, 1000, "rounds"}, "count", "measure every point this many times, in rounds: every point once a round, each round in a shuffled order (from -seed)")
	fs.StringVar(&sf.plot, "plot", "", "draw evts/sec against pipes (log-log) to this .svg or .png file")
	fs.StringVar(&sf.ref, "ref", "", "reference table (CSV, see testdata/README.md) drawn on the plot; every curve is then divided by its first point")
	fs.Var(factorFlag{&sf.refine}, "refine", "add points inside each crossing's bracket until its ends are within this factor, such as 1.25")
	fs.StringVar(&sf.ratios, "ratios", "", "ratio columns such as epoll/poll,epoll/select (default: the last backend over each other one)")
	fs.Var(rateList{&sf.rates, &sf.ofSaturation}, "rate", "open loop: offered loads, comma-separated: tokens per second (370k, 1.5M) or shares of each configuration's saturation, measured first (10%,50%,90%,110% or 0.1x,0.5x)")
}

func sweepCommand(args []string, stdout, stderr io.Writer, stop <-chan struct{}) int {
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	var sf sweepFlags
	sf.register(fs)
	var rf runFlags
	rf.register(fs, "b", "n", "l", "f", "writers", "readers", "rate")
	rf.duration, rf.interval, rf.writer = sweepDuration, sweepInterval, sweepWriter
	fs.Lookup("d").DefValue, fs.Lookup("i").DefValue, fs.Lookup("writer").DefValue = sweepDuration.String(), sweepInterval.String(), sweepWriter
	if code := parseSub(fs, args, sweepHelp, stdout, stderr); code >= 0 {
		return code
	}
	if err := sf.out.check(fs); err != nil {
		return usageError(stderr, fmt.Errorf("sweep: %w", err))
	}
	p, err := sf.plan(fs, &rf)
	if err != nil {
		return usageError(stderr, fmt.Errorf("sweep: %w", err))
	}
	rec := recordOf("sweep", fs, args)
	sweep.WriteStart(stderr, len(p.jobs), sf.count, rf.duration)
	if sf.ofSaturation {
		fmt.Fprintf(stderr, "sweep: first the saturation of each of %d configurations (an unbounded writer, -l 0): the rates are shares of it\n", len(p.jobs)/len(sf.rates))
	}
	progress := sweep.NewBar(stderr, "sweep", sweep.IsTerminal(stderr), len(p.jobs)*sf.count, rf.duration+200*time.Millisecond)
	opt := sweep.Options{Warmup: rf.warmup, Stop: stop, OnProgress: progress.Show, Run: runPoint,
		Rounds: sf.count, ShuffleSeed: rf.seed,
		Refine: sf.refine, RefineBudget: refineBudget, Job: p.job}
	res, runErr := sweep.Run(p.grid, p.jobs, opt)
	progress.Close()
	sweep.WriteCounts(stderr, res)

	code := sf.out.finish("sweep", stdout, stderr, sweep.NewDoc(rec, res, p.ratios, sf.unit == "ms"), nil)
	if sf.plot != "" && !drawSweep(sf.plot, res, p, stderr) {
		code = exitFailed
	}
	points := len(p.jobs)
	if res.Refine != nil {
		points += len(res.Refine.Added)
	}
	sweep.WriteInterrupted(stderr, res, points)
	if runErr != nil {
		fmt.Fprintf(stderr, "pipebench: sweep: %v\n", runErr)
		return exitFailed
	}
	return code
}

// sweepPlan is a sweep checked and ready to run: its points, their run
// configurations, the ratio columns, the reference table to plot beside
// it, and how to remove a plot file that the checks made.
type sweepPlan struct {
	grid    sweep.Grid
	jobs    []sweep.Job
	ratios  []sweep.Ratio
	ref     *sweep.Ref
	cleanup func()
	// job makes the job of a point -refine adds.
	job func(sweep.Key) (sweep.Job, error)
}

// plan checks the sweep's flags and prepares the run of every point from
// rf (sweep.NewJob: every rule of a run, once), before any run: an error
// names the flag. A point over the descriptor limit is a job to skip.
func (sf *sweepFlags) plan(fs *flag.FlagSet, rf *runFlags) (*sweepPlan, error) {
	if rf.duration == 0 {
		return nil, fmt.Errorf("-d 0 runs until interrupted: a sweep needs a duration per point, such as -d 3s")
	}
	set := map[string]bool{"b": true}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if err := sf.checkRates(set); err != nil {
		return nil, err
	}
	if err := sf.checkRefine(); err != nil {
		return nil, err
	}
	if len(sf.rates) > 0 && !set["writer"] {
		rf.writer = "thread" // the sweep's self cannot pace an open loop
	}
	if len(sf.rates) > 0 && !set["l"] {
		sf.inFlight = []int{0} // open loop: no tokens in flight
	}
	p := &sweepPlan{ratios: sweep.DefaultRatios(sf.backends)}
	if sf.ratios != "" {
		rs, err := sweep.ParseRatios(sf.ratios, sf.backends)
		if err != nil {
			return nil, fmt.Errorf("-ratios: %w", err)
		}
		p.ratios = rs
	}
	if sf.ref != "" {
		if sf.plot == "" {
			return nil, fmt.Errorf("-ref %s is drawn on the plot: give -plot FILE.svg or FILE.png too", sf.ref)
		}
		r, err := sweep.ReadRef(sf.ref)
		if err != nil {
			return nil, fmt.Errorf("-ref: %w", err)
		}
		p.ref = r
	}
	cleanup, err := checkPlotFile(sf.plot)
	if err != nil {
		return nil, fmt.Errorf("-plot: %w", err)
	}
	p.cleanup = cleanup
	p.grid = sweep.Grid{Backends: sf.backends, Pipes: sf.pipes, InFlight: sf.inFlight, Rates: sf.rates, OfSaturation: sf.ofSaturation}
	if sf.pipesPer != "all" {
		p.grid.PipesPer = sf.pipesPer
	}
	if set["writers"] {
		p.grid.Writers = sf.writers
	}
	if set["readers"] {
		p.grid.Readers = sf.readers
	}
	p.job = func(k sweep.Key) (sweep.Job, error) {
		rf.backend, rf.pipes, rf.inFlight = k.Backend, k.Pipes, k.InFlight
		rf.writers, rf.readers = max(k.Writers, 1), max(k.Readers, 1)
		if k.Rate > 0 {
			// A share of saturation is checked as a rate, and named as
			// -rate gave it; the sweep sets the rate once the saturation
			// is measured.
			rf.rate = k.Rate
		}
		cfg, err := rf.config(set)
		if err != nil {
			return sweep.Job{}, err
		}
		return sweep.NewJob(k, cfg, rf.pointNames(k))
	}
	for _, k := range p.grid.Keys() {
		j, err := p.job(k)
		if err != nil {
			cleanup()
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		p.jobs = append(p.jobs, j)
	}
	return p, nil
}

// checkRefine refuses -refine where nothing can cross: one backend at one
// -l is one curve (per setting of writers and readers), and one -n has no
// bracket.
func (sf *sweepFlags) checkRefine() error {
	if sf.refine == 0 {
		return nil
	}
	if len(sf.backends) < 2 && len(sf.inFlight) < 2 {
		return fmt.Errorf("-refine %g narrows where two curves cross: give two backends (-b poll,epoll) or two -l values", sf.refine)
	}
	if len(sf.pipes) < 2 {
		return fmt.Errorf("-refine %g narrows a crossing between two pipe counts: give at least two -n values, such as -n 1,100", sf.refine)
	}
	return nil
}

// checkRates refuses, with -rate, the flags of a closed-loop sweep's table,
// crossings and plot, which an open-loop sweep has not; -l and -writer
// are the run's rule (pipebench.Config), checked with each point.
func (sf *sweepFlags) checkRates(set map[string]bool) error {
	if len(sf.rates) == 0 {
		return nil
	}
	for _, f := range []struct{ name, why string }{
		{"refine", "narrows the crossings of evts/sec against pipes"},
		{"ref", "draws a published table beside evts/sec against pipes"},
		{"ratios", "are columns of the evts/sec table"},
		{"unit", "is the unit of the evts/sec table"},
	} {
		if set[f.name] {
			return fmt.Errorf("-%s with -rate: -%s %s, which an open-loop sweep has not: its table is a row per backend and rate", f.name, f.name, f.why)
		}
	}
	return nil
}

// rateList is sweep's -rate: tokens per second as the run's -rate takes
// them, or shares of saturation ("50%", "0.5x"), every item of one kind.
type rateList struct {
	v            *[]float64
	ofSaturation *bool
}

// maxShare is the largest share of saturation -rate takes: 10 times it.
const maxShare = 10

func (f rateList) String() string {
	if f.v == nil || len(*f.v) == 0 {
		return ""
	}
	items := make([]string, len(*f.v))
	for i, x := range *f.v {
		items[i] = sweep.RateText(x, *f.ofSaturation)
	}
	return strings.Join(items, ",")
}

func (f rateList) Set(s string) error {
	want := fmt.Errorf("want tokens per second above 0 (370000, 370k, 1.5M) or shares of saturation above 0 and up to %d times it (50%%, 0.5x), comma-separated, all of one kind", maxShare)
	var rates []float64
	kinds := map[bool]bool{}
	err := listFlag[float64]{v: &rates, parse: func(item string) (float64, error) {
		num, share := strings.CutSuffix(item, "%")
		scale := 0.01
		if !share {
			num, share = strings.CutSuffix(item, "x")
			scale = 1
		}
		kinds[share] = true
		if !share {
			var x float64
			if err := (rateFlag{&x}).Set(item); err != nil {
				return 0, fmt.Errorf("%q: %w", item, want)
			}
			return x, nil
		}
		x, err := strconv.ParseFloat(num, 64)
		if x *= scale; err != nil || !(x > 0 && x <= maxShare) {
			return 0, fmt.Errorf("%q: %w", item, want)
		}
		return x, nil
	}}.Set(s)
	switch {
	case err != nil:
		return err
	case len(kinds) > 1:
		return fmt.Errorf("%q mixes tokens per second with shares of saturation: %w", s, want)
	}
	*f.v, *f.ofSaturation = rates, kinds[true]
	return nil
}

// pointNames are the names of the settings of the point at k: the
// flags', its rate as -rate gave it ("-rate 50%").
func (rf *runFlags) pointNames(k sweep.Key) pipebench.Names {
	names := rf.names()
	if k.Rate == 0 {
		return names
	}
	return func(field, value string) string {
		if field == "Rate" {
			return "-rate " + sweep.RateText(k.Rate, k.OfSaturation)
		}
		return names(field, value)
	}
}

// factorFlag is a factor above 1 (0, the default, is off).
type factorFlag struct{ v *float64 }

func (f factorFlag) String() string {
	if f.v == nil || *f.v == 0 {
		return ""
	}
	return strconv.FormatFloat(*f.v, 'g', -1, 64)
}

func (f factorFlag) Set(s string) error {
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || !(x > 1) || math.IsInf(x, 0) {
		return fmt.Errorf("want a factor above 1, such as 1.25: narrow each crossing's bracket until its ends are within it")
	}
	*f.v = x
	return nil
}

// drawSweep draws res to path, with the plan's reference table, and says
// on stderr what it did; false when it failed.
func drawSweep(path string, res *sweep.Result, p *sweepPlan, stderr io.Writer) bool {
	if len(res.Points) == 0 {
		p.cleanup()
		fmt.Fprintf(stderr, "sweep: no point measured, no plot drawn\n")
		return true
	}
	var fig plot.Drawing = plot.FromSweep(res, p.ref)
	if res.Grid.Open() {
		fig = plot.FromLoad(res)
	}
	if err := plot.Save(path, fig); err != nil {
		fmt.Fprintf(stderr, "pipebench: sweep: %v\n", err)
		return false
	}
	fmt.Fprintf(stderr, "sweep: plot written to %s\n", path)
	return true
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
