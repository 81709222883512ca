package main

import (
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/pipebench/pipebench/experiment/herd"
	"github.com/pipebench/pipebench/internal/envinfo"
	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/stats/report"
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
fresh setup; the summary shows them side by side with their ratio.

`

// herdFlags are the flags of pipebench herd.
type herdFlags struct {
	waiters, pipes, inFlight, warmup int
	mode, exclusive, format          string
	duration, interval               time.Duration
	seed                             uint64
}

func (hf *herdFlags) register(fs *flag.FlagSet) {
	hf.waiters, hf.pipes, hf.inFlight, hf.warmup = 8, 100, 1, 1
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
	fs.Uint64Var(&hf.seed, "seed", 1, "seed of the writer's random choice of pipe")
	formatFlag(fs, &hf.format)
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

func herdCommand(args []string, stdout, stderr io.Writer, stop <-chan struct{}) int {
	fs := flag.NewFlagSet("herd", flag.ContinueOnError)
	var hf herdFlags
	hf.register(fs)
	if code := parseSub(fs, args, herdHelp, stdout, stderr); code >= 0 {
		return code
	}
	if hf.interval > hf.duration {
		return usageError(stderr, fmt.Errorf("herd: -i %v is longer than -d %v: want an interval no longer than the duration", hf.interval, hf.duration))
	}
	cfg := herd.Config{Waiters: hf.waiters, Pipes: hf.pipes, InFlight: hf.inFlight, Seed: hf.seed,
		Duration: hf.duration, Interval: hf.interval, Stop: stop}
	cfg.Mode, _ = herd.ParseMode(hf.mode)
	cfg.Exclusive, _ = exclusiveSettings(hf.exclusive)
	text := hf.format == "text"
	if text {
		settings := map[string]string{"both": "off, then on", "off": "off", "on": "on"}[hf.exclusive]
		headed := false
		cfg.OnSetup = func(s herd.Setup) {
			// Printed once the run is known to fit, so that bad input
			// leaves stdout empty.
			if !headed {
				fmt.Fprintf(stdout, "herd: %s, EPOLLEXCLUSIVE %s, %v each\n", herdShape(hf.waiters, cfg.Mode, hf.pipes, hf.inFlight), settings, hf.duration)
				headed = true
			}
			fmt.Fprintf(stdout, "exclusive %s: %d waiters ready in %v (GOMAXPROCS %d)\n", herd.OnOff(s.Exclusive), s.Waiters, s.Took.Round(time.Millisecond), s.GOMAXPROCS)
		}
		cfg.OnInterval = func(iv herd.Interval) {
			fmt.Fprintf(stdout, "exclusive %s: %.0f evts/sec %s returns per token\n", herd.OnOff(iv.Exclusive), iv.EventsPerSec, g4(iv.ReturnsPerToken))
		}
	}
	res, err := herd.Run(cfg)
	var cfgErr *herd.ConfigError
	var limErr *herd.LimitError
	if errors.As(err, &cfgErr) || errors.As(err, &limErr) {
		return usageError(stderr, fmt.Errorf("herd: %w", err))
	}
	var doc docWriter
	if res != nil {
		doc = newHerdDoc(cfg, hf, res)
	}
	return finish("herd", stdout, stderr, hf.format, doc, err)
}

func herdShape(waiters int, mode herd.Mode, pipes, inFlight int) string {
	what := "threads"
	if mode == herd.Processes {
		what = "processes"
	}
	return fmt.Sprintf("%d waiter %s, %d pipes, %d tokens in flight", waiters, what, pipes, inFlight)
}

// herdDoc is what pipebench herd reports: each setting with its figures,
// and off/on ratios when both ran.
type herdDoc struct {
	Tool        string              `json:"tool"`
	Started     time.Time           `json:"started"`
	Waiters     int                 `json:"waiters"`
	Mode        herd.Mode           `json:"mode"`
	Pipes       int                 `json:"pipes"`
	InFlight    int                 `json:"in_flight"`
	Duration    time.Duration       `json:"duration_ns"`
	Warmup      int                 `json:"warmup"`
	Sides       []herdSide          `json:"sides"`
	Ratios      map[string]float64  `json:"ratios_off_over_on,omitempty"`
	Environment envinfo.Environment `json:"environment"`
}

type herdSide struct {
	herd.Side
	Figures herd.Figures `json:"figures"`
}

func newHerdDoc(cfg herd.Config, hf herdFlags, res *herd.Result) *herdDoc {
	d := &herdDoc{Tool: "pipebench herd", Started: time.Now().UTC(), Waiters: cfg.Waiters, Mode: cfg.Mode,
		Pipes: cfg.Pipes, InFlight: cfg.InFlight, Duration: cfg.Duration, Warmup: hf.warmup,
		Environment: envinfo.Read()}
	for _, s := range res.Sides {
		f := s.Figures(hf.warmup)
		d.Sides = append(d.Sides, herdSide{Side: s, Figures: f})
	}
	if len(d.Sides) == 2 && !d.Sides[0].Setup.Exclusive && d.Sides[1].Setup.Exclusive {
		d.Ratios = map[string]float64{}
		for _, r := range herdRows {
			if v, ok := ratio(r.value(&d.Sides[0]), r.value(&d.Sides[1])); ok {
				d.Ratios[r.key] = v
			}
		}
	}
	return d
}

// ratio is a / b; ok is false when b is 0, where the ratio does not
// apply: the text says n/a and the JSON leaves the key out (it carries no
// infinity, and a 0 would read as a measured ratio).
func ratio(a, b float64) (v float64, ok bool) {
	if b == 0 {
		return 0, false
	}
	return a / b, true
}

// herdRow is one line of the side-by-side table: a label and the figure
// it shows, formatted.
type herdRow struct {
	label string
	key   string // in the JSON ratios
	value func(s *herdSide) float64
	show  func(float64) string
}

var herdRows = []herdRow{
	{"evts/sec (median)", "evts_per_sec_median", func(s *herdSide) float64 { return s.Figures.EventsPerSec.Median }, f0},
	{"tokens/sec", "tokens_per_sec", func(s *herdSide) float64 { return s.Figures.TokensPerSec }, f0},
	{"wake-ups per token", "wakeups_per_token", func(s *herdSide) float64 { return s.Figures.WakeupsPerToken }, g4},
	{"returns per token", "returns_per_token", func(s *herdSide) float64 { return s.Figures.ReturnsPerToken }, g4},
	{"wasted returns per token", "wasted_returns_per_token", func(s *herdSide) float64 { return s.Figures.WastedReturnsPerToken }, g4},
	{"wasted reads per token", "wasted_reads_per_token", func(s *herdSide) float64 { return s.Figures.WastedReadsPerToken }, g4},
	{"waiters' sys CPU", "waiters_sys_ns", func(s *herdSide) float64 { return float64(s.WaiterUsage.System) }, nsDur},
	{"waiters' sys CPU per token", "sys_ns_per_token", func(s *herdSide) float64 { return s.Figures.SystemPerToken }, nsDur},
	{"waiters' user CPU per token", "user_ns_per_token", func(s *herdSide) float64 { return s.Figures.UserPerToken }, nsDur},
	{"writer's sys CPU per token", "writer_sys_ns_per_token", func(s *herdSide) float64 { return s.Figures.WriterSystemPerToken }, nsDur},
}

func f0(x float64) string    { return strconv.FormatFloat(x, 'f', 0, 64) }
func g4(x float64) string    { return strconv.FormatFloat(x, 'g', 4, 64) }
func nsDur(x float64) string { return report.Nanos(x) }

// nanos prints a duration with three significant digits: 953µs, 1.02ms.
func nanos(d time.Duration) string { return report.Nanos(float64(d)) }

func (d *herdDoc) writeText(w io.Writer) error {
	p := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	p("--- herd: %s, %v measured per setting", herdShape(d.Waiters, d.Mode, d.Pipes, d.InFlight), d.Duration)
	head := fmt.Sprintf("%-30s", "EPOLLEXCLUSIVE")
	for i := range d.Sides {
		head += fmt.Sprintf(" %12s", herd.OnOff(d.Sides[i].Setup.Exclusive))
	}
	if d.Ratios != nil {
		head += fmt.Sprintf(" %8s", "off/on")
	}
	p("%s", head)
	for _, r := range herdRows {
		line := fmt.Sprintf("%-30s", r.label)
		for i := range d.Sides {
			line += fmt.Sprintf(" %12s", r.show(r.value(&d.Sides[i])))
		}
		if d.Ratios != nil {
			v, ok := d.Ratios[r.key]
			s := "n/a"
			if ok {
				s = g4(v)
			}
			line += fmt.Sprintf(" %8s", s)
		}
		p("%s", line)
	}
	line := fmt.Sprintf("%-30s", "tokens per waiter (min..max)")
	for i := range d.Sides {
		f := d.Sides[i].Figures
		line += fmt.Sprintf(" %12s", fmt.Sprintf("%d..%d", f.MinTokens, f.MaxTokens))
	}
	p("%s", line)
	for i := range d.Sides {
		s := &d.Sides[i]
		tk := s.Tokens
		state := "measured"
		if s.Interrupted {
			state = "interrupted"
		}
		p("tokens, exclusive %-4s sent %d  received %d  drained %d  lost %d  (%v %s)", herd.OnOff(s.Setup.Exclusive)+":",
			tk.Sent, tk.Received, tk.Drained, tk.Lost, s.Elapsed.Round(time.Millisecond), state)
	}
	p("wake-ups: the waiters' voluntary context switches (sleeps ended) less timeouts; returns: waits that returned a ready pipe")
	lent := 0
	if len(d.Sides) > 0 {
		lent = d.Sides[0].Setup.GOMAXPROCS - d.Environment.GOMAXPROCS
	}
	p("machine        %s", report.MachineLine(d.Environment, lent))
	return nil
}

// writeCSV writes one row per setting: the setting, the table's figures
// (the keys of herdRows) and the token accounting.
func (d *herdDoc) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := []string{"exclusive", "waiters", "mode", "pipes", "in_flight", "seconds", "interrupted"}
	for _, r := range herdRows {
		head = append(head, r.key)
	}
	_ = cw.Write(append(head, "min_waiter_tokens", "max_waiter_tokens", "sent", "received", "drained", "lost"))
	u := func(x uint64) string { return strconv.FormatUint(x, 10) }
	for i := range d.Sides {
		s := &d.Sides[i]
		row := []string{herd.OnOff(s.Setup.Exclusive), strconv.Itoa(d.Waiters), d.Mode.String(), strconv.Itoa(d.Pipes),
			strconv.Itoa(d.InFlight), strconv.FormatFloat(s.Elapsed.Seconds(), 'g', -1, 64), strconv.FormatBool(s.Interrupted)}
		for _, r := range herdRows {
			row = append(row, strconv.FormatFloat(r.value(s), 'g', -1, 64))
		}
		f, tk := s.Figures, s.Tokens
		_ = cw.Write(append(row, u(f.MinTokens), u(f.MaxTokens), u(tk.Sent), u(tk.Received), u(tk.Drained),
			strconv.FormatInt(tk.Lost, 10)))
	}
	cw.Flush()
	return cw.Error()
}
