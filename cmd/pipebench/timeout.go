package main

import (
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/pipebench/pipebench/experiment/record"
	"github.com/pipebench/pipebench/experiment/timeout"
)

func init() {
	subcommands["timeout"] = subcommand{
		summary: "timeout precision: how late epoll_wait, epoll_pwait2, ppoll, pselect6 and a timerfd wake",
		run:     timeoutCommand,
	}
}

const timeoutHelp = `usage: pipebench timeout [-timeouts LIST] [-samples N] [flags]

Measures how late each mechanism wakes when its timeout runs out on a pipe
nobody writes: overshoot = actual - requested, on the monotonic clock.
epoll_wait takes whole milliseconds (a request is rounded up); epoll_pwait2,
ppoll and pselect6 take nanoseconds; epoll+timerfd arms a timerfd for the
request. Samples of every point are interleaved round by round. -count N
repeats the whole measurement N times: the table shows each point's
medians across the repetitions, the JSON keeps every repetition.

`

// registerTimeout adds timeout's flags to fs: they set cfg, which the
// flags' defaults fill, and out.
func registerTimeout(fs *flag.FlagSet, cfg *timeout.Config, out *docOutput) {
	*cfg = timeout.Config{
		Timeouts:   append([]time.Duration(nil), timeout.DefaultTimeouts...),
		Mechanisms: timeout.Mechanisms(),
		Samples:    100,
		Rounds:     1,
	}
	fs.Var(listFlag[time.Duration]{v: &cfg.Timeouts, parse: timeoutItem}, "timeouts", "requested timeouts, comma-separated")
	fs.Var(listFlag[timeout.Mechanism]{v: &cfg.Mechanisms, parse: timeout.ParseMechanism}, "mechanisms", "mechanisms to measure, comma-separated")
	fs.Var(intFlag{&cfg.Samples, 1, timeout.MaxSamples, "samples"}, "samples", "samples per mechanism and timeout")
	fs.Var(intFlag{&cfg.Rounds, 1, timeout.MaxRounds, "rounds"}, "count", "repeat the whole measurement this many times; the table shows the medians")
	fs.Var(durationFlag{&cfg.Slack, time.Nanosecond, "leaves the thread's timer slack as inherited", time.Second}, "slack",
		"timer slack (PR_SET_TIMERSLACK) of the measuring thread")
	out.register(fs)
}

func timeoutCommand(args []string, stdout, stderr io.Writer, stop <-chan struct{}) int {
	fs := flag.NewFlagSet("timeout", flag.ContinueOnError)
	var cfg timeout.Config
	var out docOutput
	registerTimeout(fs, &cfg, &out)
	if code := parseSub(fs, args, timeoutHelp, stdout, stderr); code >= 0 {
		return code
	}
	if err := out.check(fs); err != nil {
		return usageError(stderr, fmt.Errorf("timeout: %w", err))
	}
	rec := recordOf("timeout", fs, args)
	prepared, err := timeout.Prepare(cfg, flagNames(false))
	if err != nil {
		return usageError(stderr, fmt.Errorf("timeout: %w", err))
	}
	if out.format == "text" {
		timeout.WriteHead(stdout, cfg)
	}
	obs := timeout.Observers{Stop: stop}
	if cfg.Rounds > 1 {
		obs.OnRound = func(r int) { fmt.Fprintf(stderr, "timeout: round %d/%d\n", r, cfg.Rounds) }
	}
	res, err := prepared.Run(obs)
	var doc record.Doc
	if res != nil {
		doc = timeout.NewDoc(rec, res)
	}
	return out.finish("timeout", stdout, stderr, doc, err)
}

// timeoutItem parses one requested timeout, in (0, timeout.MaxTimeout].
func timeoutItem(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 || d > timeout.MaxTimeout {
		return 0, fmt.Errorf("want a comma-separated list of durations above 0 and at most %v, such as 50us,1ms", timeout.MaxTimeout)
	}
	return d, nil
}
