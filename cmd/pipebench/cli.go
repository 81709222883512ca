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

	"github.com/pipebench/pipebench/experiment/record"
	"github.com/pipebench/pipebench/experiment/report"
	"github.com/pipebench/pipebench/internal/profile"
	"github.com/pipebench/pipebench/pipebench"
)

// Exit statuses.
const (
	exitOK      = 0
	exitFailed  = 1 // the run failed: a writer died, tokens lost, a stall
	exitUsage   = 2 // bad input, found before any work
	maxPipes    = 1000000
	maxDuration = 24 * time.Hour
)

// runFlags are the flags of a benchmark run.
type runFlags struct {
	pipes, inFlight int
	backend         string
	bypass          bool
	writer, route   string
	duration        time.Duration
	interval        time.Duration
	seed            uint64
	warmup          int
	latency         bool
	source          string
	churn           int
	delay           time.Duration
	minWait         time.Duration
	cpus            []int
	cpuSpread       bool
	readers         int
	writers         int
	maxEvents       int
	nest            int
	share           bool
	rate            float64
}

// register adds the run flags to fs, except those named in skip: a
// subcommand that gives a flag another meaning (sweep's lists) registers
// that one itself.
func (rf *runFlags) register(fs *flag.FlagSet, skip ...string) {
	if len(skip) > 0 {
		all := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
		rf.register(all)
		all.VisitAll(func(f *flag.Flag) {
			if !slices.Contains(skip, f.Name) {
				fs.Var(f.Value, f.Name, f.Usage)
			}
		})
		return
	}
	rf.pipes, rf.inFlight, rf.backend = 1000, 1, "epoll"
	rf.writer, rf.route = "auto", "random"
	rf.duration, rf.interval, rf.seed, rf.warmup = 10*time.Second, time.Second, 1, 1
	fs.Var(intFlag{&rf.pipes, 1, maxPipes, "pipes"}, "n", "number of pipes")
	fs.Var(intFlag{&rf.inFlight, 0, pipebench.MaxInFlight, "tokens"}, "l", "tokens in flight; 0 = unbounded writer that never waits")
	fs.Var(choiceFlag{&rf.backend, checkBackend}, "b", "backend: "+backendNames())
	fs.BoolVar(&rf.bypass, "f", false, "bypass: no readiness call, each token read from the pipe it was written to (the floor), with -writer self or process; the same as -b "+pipebench.Bypass.Name)
	fs.Var(choiceFlag{&rf.writer, func(s string) error { _, err := pipebench.ParseWriterMode(s); return err }}, "writer", "who forwards tokens: self, thread, process or auto (auto: thread, or process when thread does not fit the descriptor limit; for the bypass self, or process)")
	fs.Var(choiceFlag{&rf.route, func(s string) error { _, err := pipebench.ParseRoute(s); return err }}, "route", "next pipe for a token: random (seeded xorshift) or next (i+1)")
	fs.Var(durationFlag{&rf.duration, time.Millisecond, "runs until interrupted", maxDuration}, "d", "measured duration")
	fs.Var(durationFlag{&rf.interval, 10 * time.Millisecond, "", time.Hour}, "i", "reporting interval")
	fs.Var(uintFlag{&rf.seed}, "seed", "seed of the random route")
	fs.Var(intFlag{&rf.warmup, 0, 1000, "intervals"}, "warmup", "leading intervals left out of the summary (0 keeps them all)")
	fs.BoolVar(&rf.latency, "latency", false, "record each token's write-to-read time (8-byte tokens; a clock read per event and per write)")
	fs.Var(rateFlag{&rf.rate}, "rate", "open loop: send this many tokens per second on a fixed schedule, such as 370k or 1.5M (no -l; -latency then times each token from its scheduled send)")
	rf.source = "pipe"
	fs.Var(choiceFlag{&rf.source, func(s string) error { _, err := pipebench.ParseSource(s); return err }}, "fd", "event source: pipe, unix (socketpair), tcp (loopback) or eventfd")
	fs.Var(intFlag{&rf.churn, 0, maxPipes, "descriptors"}, "churn", "remove and re-add this many descriptors after every readiness call that returned events")
	fs.Var(durationFlag{&rf.delay, time.Microsecond, "no delay", time.Second}, "delay", "sleep this long before every readiness call (batching by delay)")
	fs.Var(durationFlag{&rf.minWait, time.Microsecond, "no minimum wait", 100 * time.Millisecond}, "minwait", "io_uring's minimum wait (Linux 6.12; uring, uring-oneshot, uring-epoll): a readiness call that blocks returns once -maxevents completions are in, or once this has passed and one is")
	fs.Var(cpuFlag{cpuList(&rf.cpus), &rf.cpuSpread}, "cpu", "pin the measured threads: 0 puts all on CPU 0; a list names one CPU per thread, readers then writers (0,1: reader, writer); spread: round-robin over the allowed CPUs")
	rf.readers, rf.writers = 1, 1
	fs.Var(intFlag{&rf.readers, 1, pipebench.MaxThreads, "reader threads"}, "readers", "reader threads, each with its own backend instance over its own share of the pipes (2 or more need -writer thread or auto)")
	fs.Var(intFlag{&rf.writers, 1, pipebench.MaxThreads, "writer threads"}, "writers", "writer threads, each owning every -writers-th pipe and its own share of -l, so -l at least -writers or 0 (2 or more need -writer thread or auto)")
	fs.Var(intFlag{&rf.maxEvents, 0, maxPipes, "ready descriptors"}, "maxevents", "the most ready descriptors one readiness call may return; 0 = every pipe of the reader")
	fs.BoolVar(&rf.share, "share", false, "with -readers 2 or more: every reader waits on one backend instance over all the pipes (epoll backends; perf bench epoll wait's default)")
	fs.Var(intFlag{&rf.nest, 0, pipebench.MaxNest, "levels of nested epoll sets"}, "nest", "register the pipes in an epoll set this many levels below the one waited on (epoll backends)")
}

func checkBackend(s string) error {
	_, err := findBackend(s)
	return err
}

// config turns the parsed flags into a run configuration, unchecked:
// pipebench.Prepare checks it, naming the flags (names). The one error it
// finds is of the flags themselves (-f with -b).
func (rf *runFlags) config(set map[string]bool) (pipebench.Config, error) {
	c := pipebench.Config{
		Workload:  pipebench.Workload{Pipes: rf.pipes, InFlight: rf.inFlight, RouteSeed: rf.seed, Latency: rf.latency, Rate: rf.rate},
		Readiness: pipebench.Readiness{Churn: rf.churn, Delay: rf.delay, MinWait: rf.minWait, MaxEvents: rf.maxEvents, Nest: rf.nest, Share: rf.share},
		Threads:   pipebench.Threads{CPUs: rf.cpus, Spread: rf.cpuSpread, Readers: rf.readers, Writers: rf.writers},
		Window:    pipebench.Window{Duration: rf.duration, Interval: rf.interval, Warmup: rf.warmup},
	}
	if rf.rate > 0 && !set["l"] {
		c.InFlight = 0 // -rate is open loop: no tokens in flight unless -l says otherwise
	}
	c.Source, _ = pipebench.ParseSource(rf.source)
	c.Writer, _ = pipebench.ParseWriterMode(rf.writer)
	c.Route, _ = pipebench.ParseRoute(rf.route)
	if rf.bypass { // -f is -b bypass
		if set["b"] && rf.backend != pipebench.Bypass.Name {
			return c, fmt.Errorf("-f bypasses the readiness call; it cannot be combined with -b %s", rf.backend)
		}
		rf.backend = pipebench.Bypass.Name
	}
	c.Backend, _ = findBackend(rf.backend)
	return c, nil
}

// names are the run's settings as the flags that set them (flagNames).
func (rf *runFlags) names() pipebench.Names { return flagNames(rf.bypass) }

// command is the whole program as a function of its arguments and outputs,
// so that tests can run it. stop, when closed, ends a run early.
func command(args []string, stdout, stderr io.Writer, stop <-chan struct{}) int {
	if len(args) > 0 {
		if sub, ok := subcommands[args[0]]; ok {
			return sub.run(args[1:], stdout, stderr, stop)
		}
	}
	return runCommand(args, stdout, stderr, stop)
}

// subcommand is one of pipebench's verbs besides the plain run; each lives
// in its own file and adds itself to subcommands in an init function.
type subcommand struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer, stop <-chan struct{}) int
}

var subcommands = map[string]subcommand{}

// outputFlags choose the format and destination of a run's results.
type outputFlags struct {
	format  string
	out     string
	count   int
	verbose bool
}

func (of *outputFlags) register(fs *flag.FlagSet) {
	of.format, of.count = "text", 1
	fs.Var(choiceFlag{&of.format, func(s string) error {
		if !slices.Contains(report.Formats, s) {
			return fmt.Errorf("unknown format %q: want %s", s, strings.Join(report.Formats, ", "))
		}
		return nil
	}}, "format", "output format: "+strings.Join(report.Formats, ", "))
	fs.StringVar(&of.out, "o", "", "write the output to this file instead of stdout (-format json unless given, when the name ends in .json)")
	fs.Var(intFlag{&of.count, 1, 1000, "runs"}, "count", "repeat the run this many times, fresh pipes each time")
	fs.BoolVar(&of.verbose, "v", false, verboseUsage)
}

// check refuses output settings that cannot work, before any file is made:
// the command's own (the run's are pipebench.Prepare's).
func (of *outputFlags) check(pf *profileFlags) error {
	if of.out == "" {
		return nil
	}
	for _, p := range pf.files() {
		if p.path == of.out {
			return fmt.Errorf("-o and -%s name the same file %s: want two files", p.flag, of.out)
		}
	}
	if err := checkWritable(of.out); err != nil {
		return fmt.Errorf("-o %s: cannot write there: %w", of.out, err)
	}
	return nil
}

// open checks the destination before any work and returns the writer; close
// must be called at the end.
func (of *outputFlags) open(stdout io.Writer) (report.Writer, func() error, error) {
	w, closeFn := stdout, func() error { return nil }
	if of.out != "" {
		f, err := os.Create(of.out)
		if err != nil {
			return nil, nil, fmt.Errorf("-o %s: cannot write there: %w", of.out, err)
		}
		w, closeFn = f, f.Close
	}
	rw, err := report.NewVerbose(of.format, w, of.verbose)
	if err != nil {
		closeFn()
		return nil, nil, fmt.Errorf("-format: %w", err)
	}
	return rw, closeFn, nil
}

// runCommand is a plain benchmark run: pipebench [flags].
func runCommand(args []string, stdout, stderr io.Writer, stop <-chan struct{}) int {
	fs := flag.NewFlagSet("pipebench", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var rf runFlags
	rf.register(fs)
	var of outputFlags
	of.register(fs)
	var pf profileFlags
	pf.register(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(stdout, fs)
			return exitOK
		}
		return usageError(stderr, err)
	}
	if fs.NArg() > 0 {
		return usageError(stderr, fmt.Errorf("unexpected argument %q: pipebench takes flags only (see pipebench -h)", fs.Arg(0)))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	jsonByName(fs, of.out, &of.format)
	cfg, err := rf.config(set)
	if err != nil {
		return usageError(stderr, err)
	}
	// The command's own rules first: its files, -count and the profiles.
	if cfg.Duration == 0 && of.count > 1 {
		return usageError(stderr, fmt.Errorf("-count %d needs a duration: -d 0 runs until interrupted", of.count))
	}
	if err := pf.check(of.count); err != nil {
		return usageError(stderr, err)
	}
	if err := of.check(&pf); err != nil {
		return usageError(stderr, err)
	}
	// Then every rule of the run, once, before the output file is created
	// (and an earlier result in it truncated): the descriptor plan counts
	// that file's descriptor too.
	extra := 0
	if of.out != "" {
		extra = 1
	}
	prepared, err := pipebench.Prepare(cfg, extra, rf.names())
	if err != nil {
		return usageError(stderr, err)
	}
	out, closeOut, err := of.open(stdout)
	if err != nil {
		return usageError(stderr, err)
	}
	// Profiles' top tables follow a text report, or go to stderr when
	// stdout carries another format.
	tables := stdout
	if of.out == "" && of.format != "text" {
		tables = stderr
	}
	prof := pf.profiler()
	code := runAll(recordOf("run", fs, args), prepared, of.count, out, stderr, stop, prof)
	code = max(code, finishProfiles(prof, tables, stderr))
	if err := closeOut(); err != nil && code == exitOK {
		fmt.Fprintf(stderr, "pipebench: -o %s: %v\n", of.out, err)
		return exitFailed
	}
	return code
}

// runAll runs p count times and reports through out, in the document rec
// begins. What fails now is a run, never its configuration, which Prepare
// has checked.
func runAll(rec record.Head, p *pipebench.Prepared, count int, out report.Writer, stderr io.Writer, stop <-chan struct{}, prof *profile.Profiler) int {
	cfg := p.Config()
	doc := &report.Doc{Head: rec, Config: report.NewConfig(&cfg, count)}
	var outErr error
	keep := func(err error) {
		if outErr == nil && err != nil {
			outErr = err
		}
	}
	keep(out.Start(doc))
	code := exitOK
	for run := 1; run <= count; run++ {
		obs := pipebench.Observers{
			Stop:       stop,
			OnSetup:    func(s pipebench.Setup) { keep(out.Setup(run, s)) },
			OnInterval: func(iv pipebench.Interval) { keep(out.Interval(run, iv)) },
		}
		res, err := p.Run(report.HookProfiler(prof, cfg, obs))
		r := doc.AddRun(res, err)
		keep(out.RunDone(r))
		if _, bench := out.(*report.Bench); bench && r.LeftOut != "" {
			// Its line is missing from the output: say so where it is seen.
			fmt.Fprintf(stderr, "pipebench: run %d of %d has no bench line: %s\n", run, count, r.LeftOut)
		}
		if err != nil {
			doc.Error = err.Error()
			code = exitFailed
			break
		}
		if res.Interrupted {
			break
		}
	}
	keep(out.Finish(doc))
	if doc.Error != "" {
		fmt.Fprintf(stderr, "pipebench: %s\n", doc.Error)
	}
	if outErr != nil {
		fmt.Fprintf(stderr, "pipebench: writing the output: %v\n", outErr)
		return exitFailed
	}
	return code
}

// usageError prints one line naming what was wrong and returns exit status 2.
func usageError(w io.Writer, err error) int {
	msg := err.Error()
	if strings.HasPrefix(msg, "flag provided but not defined") {
		msg += " (see pipebench -h)"
	}
	fmt.Fprintf(w, "pipebench: %s\n", msg)
	return exitUsage
}
