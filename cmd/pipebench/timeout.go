package main

import (
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/pipebench/pipebench/experiment/timeout"
	"github.com/pipebench/pipebench/internal/envinfo"
	"github.com/pipebench/pipebench/stats/report"
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
request. Samples of every point are interleaved round by round.

`

// durationList is a comma-separated list of durations, each in (0, max].
type durationList struct {
	v   *[]time.Duration
	max time.Duration
}

func (f durationList) String() string {
	if f.v == nil {
		return ""
	}
	parts := make([]string, len(*f.v))
	for i, d := range *f.v {
		parts[i] = d.String()
	}
	return strings.Join(parts, ",")
}

func (f durationList) Set(s string) error {
	var ds []time.Duration
	for _, part := range strings.Split(s, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(part))
		if err != nil || d <= 0 || d > f.max {
			return fmt.Errorf("want a comma-separated list of durations above 0 and at most %v, such as 50us,1ms", f.max)
		}
		ds = append(ds, d)
	}
	*f.v = ds
	return nil
}

// mechanismList is a comma-separated list of mechanism names.
type mechanismList struct{ v *[]timeout.Mechanism }

func (f mechanismList) String() string {
	if f.v == nil {
		return ""
	}
	parts := make([]string, len(*f.v))
	for i, m := range *f.v {
		parts[i] = m.String()
	}
	return strings.Join(parts, ",")
}

func (f mechanismList) Set(s string) error {
	var ms []timeout.Mechanism
	for _, part := range strings.Split(s, ",") {
		m, err := timeout.ParseMechanism(strings.TrimSpace(part))
		if err != nil {
			return err
		}
		ms = append(ms, m)
	}
	*f.v = ms
	return nil
}

func timeoutCommand(args []string, stdout, stderr io.Writer, stop <-chan struct{}) int {
	fs := flag.NewFlagSet("timeout", flag.ContinueOnError)
	cfg := timeout.Config{
		Timeouts:   append([]time.Duration(nil), timeout.DefaultTimeouts...),
		Mechanisms: timeout.Mechanisms(),
		Samples:    100,
	}
	var format string
	fs.Var(durationList{&cfg.Timeouts, timeout.MaxTimeout}, "timeouts", "requested timeouts, comma-separated")
	fs.Var(mechanismList{&cfg.Mechanisms}, "mechanisms", "mechanisms to measure, comma-separated")
	fs.Var(intFlag{&cfg.Samples, 1, timeout.MaxSamples, "samples"}, "samples", "samples per mechanism and timeout")
	fs.Var(durationFlag{&cfg.Slack, time.Nanosecond, "leaves the thread's timer slack as inherited", time.Second}, "slack",
		"timer slack (PR_SET_TIMERSLACK) of the measuring thread")
	formatFlag(fs, &format)
	if code := parseSub(fs, args, timeoutHelp, stdout, stderr); code >= 0 {
		return code
	}
	cfg.Stop = stop
	if err := cfg.Validate(); err != nil {
		return usageError(stderr, fmt.Errorf("timeout: %w", err))
	}
	if format == "text" {
		fmt.Fprintf(stdout, "timeout: %d mechanisms x %d timeouts, %d samples each\n", len(cfg.Mechanisms), len(cfg.Timeouts), cfg.Samples)
	}
	res, err := timeout.Run(cfg)
	var cfgErr *timeout.ConfigError
	if errors.As(err, &cfgErr) {
		return usageError(stderr, fmt.Errorf("timeout: %w", err))
	}
	var doc docWriter
	if res != nil {
		doc = timeoutDoc{Tool: "pipebench timeout", Started: time.Now().UTC(), Result: res, Environment: envinfo.Read()}
	}
	return finish("timeout", stdout, stderr, format, doc, err)
}

// timeoutDoc is what pipebench timeout reports.
type timeoutDoc struct {
	Tool    string    `json:"tool"`
	Started time.Time `json:"started"`
	*timeout.Result
	Environment envinfo.Environment `json:"environment"`
}

func (d timeoutDoc) writeText(w io.Writer) error {
	p := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	state := "measured"
	if d.Interrupted {
		state = "interrupted"
	}
	p("--- overshoot = actual - requested (monotonic clock), %d samples per point, timer slack %v, %v %s",
		d.Samples, d.TimerSlack, d.Elapsed.Round(time.Millisecond), state)
	p("%-14s %10s %10s %10s %10s %10s", "mechanism", "requested", "min", "p50", "p99", "max")
	interrupted := 0
	for _, pt := range d.Points {
		p("%-14s %10v %10s %10s %10s %10s", pt.Mechanism, pt.Requested, nanos(pt.Min), nanos(pt.P50), nanos(pt.P99), nanos(pt.Max))
		interrupted += pt.Interrupted
	}
	if interrupted > 0 {
		p("sleeps cut short by a signal (EINTR), discarded and taken again: %d", interrupted)
	}
	p("machine        %s", report.MachineLine(d.Environment, 1)) // the measuring thread's P
	return nil
}

func (d timeoutDoc) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"mechanism", "requested_ns", "samples", "interrupted", "min_ns", "p50_ns", "p99_ns", "max_ns", "mean_ns", "timer_slack_ns"})
	i64 := func(d time.Duration) string { return strconv.FormatInt(int64(d), 10) }
	for _, pt := range d.Points {
		_ = cw.Write([]string{pt.Mechanism.String(), i64(pt.Requested), strconv.Itoa(pt.Samples), strconv.Itoa(pt.Interrupted),
			i64(pt.Min), i64(pt.P50), i64(pt.P99), i64(pt.Max), i64(pt.Mean), i64(d.TimerSlack)})
	}
	cw.Flush()
	return cw.Error()
}
