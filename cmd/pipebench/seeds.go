package main

import (
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/pipebench/pipebench/experiment/seeds"
	"github.com/pipebench/pipebench/experiment/sweep"
	"github.com/pipebench/pipebench/pipebench"
)

func init() {
	subcommands["seeds"] = subcommand{
		summary: "each seed's claim beside this machine: the seed's figure, the figure here, their ratio, a verdict",
		run:     seedsCommand,
	}
}

const seedsHelp = `usage: pipebench seeds [-quick] [-count N] [-format text|csv|json] [-o FILE]

Runs the experiment behind each claim of the seed documents (epoll_pipe_bench
2006, pipetest 2002, EPOLLEXCLUSIVE 2015, epoll min-wait 2022, epoll_pwait1
2015) at a size that fits this machine, and prints a row per claim: the
seed's figure (from testdata/), the figure here in the same unit, their
ratio and a verdict (holds, does not hold, not comparable), then where each
figure comes from, why the verdict, and the command that measures it by
hand. -quick takes under 2 minutes, the full run under 10 (on a 2-core VM).
-count N runs every step N times, in rounds (each a fresh run): each figure
here is the median of the rounds' figures, the verdict the median's, and the
row says how many runs it rests on. Progress goes to stderr. docs/seeds.md
describes every row.

`

// runSeeds runs a reproduction; tests replace it to shrink the plan.
var runSeeds = seeds.Run

func seedsCommand(args []string, stdout, stderr io.Writer, stop <-chan struct{}) int {
	fs := flag.NewFlagSet("seeds", flag.ContinueOnError)
	quick := fs.Bool("quick", false, "the quick plan: shorter runs and fewer sizes (under 2 minutes)")
	count := 1
	fs.Var(intFlag{&count, 1, 1000, "rounds"}, "count", "run every step this many times, in rounds; each figure here is the median of the rounds'")
	var out docOutput
	out.register(fs)
	if code := parseSub(fs, args, seedsHelp, stdout, stderr); code >= 0 {
		return code
	}
	if err := out.check(fs); err != nil {
		return usageError(stderr, fmt.Errorf("seeds: %w", err))
	}
	rec := recordOf("seeds", fs, args)
	plan := seeds.Full
	if *quick {
		plan = seeds.Quick
	}
	backends := map[string]*pipebench.Factory{}
	for _, name := range []string{"poll", "epoll", "epoll-et", "uring"} {
		b, err := findBackend(name)
		if err != nil {
			return usageError(stderr, fmt.Errorf("seeds: %w", err))
		}
		backends[name] = b
	}
	if count > 1 {
		fmt.Fprintf(stderr, "seeds: %d steps x %d rounds, the %s plan, -d %v each\n", seeds.Steps(plan), count, plan.Name, plan.Run)
	} else {
		fmt.Fprintf(stderr, "seeds: %d steps, the %s plan, -d %v each\n", seeds.Steps(plan), plan.Name, plan.Run)
	}
	progress := sweep.NewBar(stderr, "seeds", sweep.IsTerminal(stderr), seeds.Steps(plan)*count, plan.Run+500*time.Millisecond)
	res, err := runSeeds(plan, seeds.Options{Backends: backends, Stop: stop, OnProgress: progress.Show, Run: runPoint,
		Names: flagNames(false), Rounds: count})
	progress.Close()
	if res == nil {
		fmt.Fprintf(stderr, "pipebench: seeds: %v\n", err)
		return exitFailed
	}
	if res.Interrupted {
		fmt.Fprintf(stderr, "seeds: interrupted: the rows of the steps not run say so\n")
	}
	return out.finish("seeds", stdout, stderr, seeds.NewDoc(rec, res), err)
}
