package main

import (
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/pipebench/pipebench/experiment/herd"
	"github.com/pipebench/pipebench/experiment/record"
	"github.com/pipebench/pipebench/pipebench"
)

func init() {
	subcommands["herd"] = subcommand{
		summary: "thundering herd: K waiters' epoll sets over the same pipes, EPOLLEXCLUSIVE off and on",
		run:     herdCommand,
	}
}

const herdHelp = `usage: pipebench herd [-waiters K] [-mode threads|processes] [flags]

K waiters, each with its own epoll set over the same N pipes' read ends; a
writer keeps L tokens in flight. Every setting of -exclusive runs for -d on a
fresh setup; the summary shows them side by side with their ratio. -count N
measures every setting N times, in rounds whose order turns by one setting
(off, on; on, off; ...): the table shows the medians, the JSON every run.

`

// herdFlags are the flags of pipebench herd.
type herdFlags struct {
	waiters, pipes, inFlight, warmup int
	count                            int
	mode, exclusive                  string
	out                              docOutput
	duration, interval               time.Duration
	seed                             uint64
}

func (hf *herdFlags) register(fs *flag.FlagSet) {
	hf.waiters, hf.pipes, hf.inFlight, hf.warmup, hf.count = 8, 100, 1, 1, 1
	hf.mode, hf.exclusive = "threads", "both"
	hf.duration, hf.interval = 3*time.Second, 500*time.Millisecond
	fs.Var(intFlag{&hf.waiters, 1, herd.MaxWaiters, "waiters"}, "waiters", "waiters sharing the pipes, each with its own epoll set")
	fs.Var(choiceFlag{&hf.mode, func(s string) error { _, err := herd.ParseMode(s); return err }}, "mode", "what a waiter is: threads or processes")
	fs.Var(choiceFlag{&hf.exclusive, func(s string) error { _, err := exclusiveSettings(s); return err }}, "exclusive", "EPOLLEXCLUSIVE settings to measure: both (off, then on), off or on")
	fs.Var(intFlag{&hf.pipes, 1, maxPipes, "pipes"}, "n", "number of pipes")
	fs.Var(intFlag{&hf.inFlight, 1, pipebench.MaxInFlight, "tokens"}, "l", "tokens in flight")
	fs.Var(durationFlag{&hf.duration, 10 * time.Millisecond, "", time.Hour}, "d", "measured duration of each setting")
	fs.Var(durationFlag{&hf.interval, 10 * time.Millisecond, "", time.Hour}, "i", "reporting interval")
	fs.Var(intFlag{&hf.warmup, 0, 1000, "intervals"}, "warmup", "leading intervals left out of the evts/sec summary")
	fs.Var(intFlag{&hf.count, 1, herd.MaxRounds, "rounds"}, "count", "measure every setting this many times, in rounds, the order turning by one setting each round; the table shows the medians")
	fs.Uint64Var(&hf.seed, "seed", 1, "seed of the writer's random choice of pipe")
	hf.out.register(fs)
}

func exclusiveSettings(s string) ([]bool, error) {
	switch s {
	case "both":
		return []bool{false, true}, nil
	case "off":
		return []bool{false}, nil
	case "on":
		return []bool{true}, nil
	}
	return nil, fmt.Errorf("unknown setting %q: want both, off or on", s)
}

// config is the herd's configuration of the parsed flags, unchecked:
// herd.Prepare checks it (the one rule book of a herd).
func (hf *herdFlags) config() herd.Config {
	cfg := herd.Config{Waiters: hf.waiters, Pipes: hf.pipes, InFlight: hf.inFlight, RouteSeed: hf.seed,
		Rounds: hf.count, Duration: hf.duration, Interval: hf.interval}
	cfg.Mode, _ = herd.ParseMode(hf.mode)
	cfg.Exclusive, _ = exclusiveSettings(hf.exclusive)
	return cfg
}

func herdCommand(args []string, stdout, stderr io.Writer, stop <-chan struct{}) int {
	fs := flag.NewFlagSet("herd", flag.ContinueOnError)
	var hf herdFlags
	hf.register(fs)
	if code := parseSub(fs, args, herdHelp, stdout, stderr); code >= 0 {
		return code
	}
	if err := hf.out.check(fs); err != nil {
		return usageError(stderr, fmt.Errorf("herd: %w", err))
	}
	rec := recordOf("herd", fs, args)
	cfg := hf.config()
	prepared, err := herd.Prepare(cfg, flagNames(false))
	if err != nil {
		return usageError(stderr, fmt.Errorf("herd: %w", err))
	}
	obs := herd.Observers{Stop: stop}
	switch {
	case hf.out.format == "text":
		progress := &herd.Progress{W: stdout, Config: cfg}
		obs.OnSetup, obs.OnInterval = progress.Setup, progress.Interval
	case hf.count > 1:
		// Rounds take a while: say on stderr which one is running.
		progress := &herd.Progress{W: stderr, Config: cfg}
		obs.OnSetup = progress.Setup
	}
	res, err := prepared.Run(obs)
	var doc record.Doc
	if res != nil {
		doc = herd.NewDoc(rec, cfg, hf.warmup, res)
	}
	return hf.out.finish("herd", stdout, stderr, doc, err)
}
