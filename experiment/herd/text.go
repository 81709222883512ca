package herd

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/pipebench/pipebench/experiment/record"
	"github.com/pipebench/pipebench/experiment/text"
	"github.com/pipebench/pipebench/pipebench"
)

// Progress writes the text format's lines while a herd runs: a head
// line when the first setting is ready, then a line for each setting's
// setup and one for each interval. Use its methods as Observers' OnSetup
// and OnInterval.
type Progress struct {
	W      io.Writer
	Config Config
	headed bool
	round  string // "round 2/5: " while a run of several rounds is in round 2
}

// Setup writes the head line (once: it waits until the run is known to fit,
// so that bad input leaves the output empty) and the setting's setup line.
func (p *Progress) Setup(s Setup) {
	c := &p.Config
	if !p.headed {
		rounds := ""
		if c.Rounds > 1 {
			rounds = fmt.Sprintf(", %d rounds, the order of the settings turning each round", c.Rounds)
		}
		head := fmt.Sprintf("herd: %s, %v a setting%s", shape(c.Waiters, c.Mode, c.Pipes, c.InFlight), c.Duration, rounds)
		for _, l := range text.Fit(head, text.Width) {
			fmt.Fprintf(p.W, "%s\n", l)
		}
		p.headed = true
	}
	if s.Round > 0 {
		p.round = fmt.Sprintf("round %d/%d: ", s.Round, c.Rounds)
	}
	fmt.Fprintf(p.W, "%sexclusive %s: %d waiters ready in %v (GOMAXPROCS %d)\n", p.round, OnOff(s.Exclusive), s.Waiters, s.Took.Round(time.Millisecond), s.GOMAXPROCS)
}

// Interval writes one interval's line.
func (p *Progress) Interval(iv Interval) {
	fmt.Fprintf(p.W, "%sexclusive %s: %.0f evts/sec %s returns per token\n", p.round, OnOff(iv.Exclusive), iv.EventsPerSec, text.Ratio(iv.ReturnsPerToken))
}

func shape(waiters int, mode Mode, pipes, inFlight int) string {
	return fmt.Sprintf("%d waiter %s, %d pipes, %d tokens in flight", waiters, mode, pipes, inFlight)
}

// column is one column of the table: a setting and the figures shown.
type column struct {
	exclusive bool
	figures   *Figures
}

// columns are the table's columns: each setting measured once, or each
// setting's medians.
func (d *Doc) columns() []column {
	var cols []column
	if d.Rounds > 1 {
		for i := range d.Medians {
			cols = append(cols, column{d.Medians[i].Exclusive, &d.Medians[i].Figures})
		}
		return cols
	}
	for i := range d.Settings {
		cols = append(cols, column{d.Settings[i].Setup.Exclusive, &d.Settings[i].Figures})
	}
	return cols
}

// figureRow is one line of the side-by-side table: a label and the figure
// it shows, formatted.
type figureRow struct {
	label string
	key   string // in the JSON ratios
	value func(f *Figures) float64
	show  func(float64) string
}

var figureRows = []figureRow{
	{"evts/sec (median)", "evts_per_sec_median", func(f *Figures) float64 { return f.EventsPerSec.Median }, text.Whole},
	{"tokens/sec", "tokens_per_sec", func(f *Figures) float64 { return f.TokensPerSec }, text.Whole},
	{"wake-ups/token", "wakeups_per_token", func(f *Figures) float64 { return f.WakeupsPerToken }, text.Ratio},
	{"returns/token", "returns_per_token", func(f *Figures) float64 { return f.ReturnsPerToken }, text.Ratio},
	{"wasted returns/token", "wasted_returns_per_token", func(f *Figures) float64 { return f.WastedReturnsPerToken }, text.Ratio},
	{"wasted reads/token", "wasted_reads_per_token", func(f *Figures) float64 { return f.WastedReadsPerToken }, text.Ratio},
	{"waiters' sys ms", "waiters_sys_ns", func(f *Figures) float64 { return f.WaiterSystem }, millis},
	{"waiters' sys ns/token", "sys_ns_per_token", func(f *Figures) float64 { return f.SystemPerToken }, text.Ratio},
	{"waiters' user ns/token", "user_ns_per_token", func(f *Figures) float64 { return f.UserPerToken }, text.Ratio},
	{"writer sys ns/token", "writer_sys_ns_per_token", func(f *Figures) float64 { return f.WriterSystemPerToken }, text.Ratio},
}

// millis prints nanoseconds as milliseconds, four significant digits.
func millis(ns float64) string { return text.Ratio(ns / 1e6) }

// WriteText writes the settings side by side, one figure a line, with the
// off/on ratio when both ran, then each setting's token accounting. With
// several rounds the figures are the medians of the repetitions, and a
// line says so.
func (d *Doc) WriteText(w io.Writer) error {
	p := func(format string, a ...any) {
		for _, l := range text.Fit(fmt.Sprintf(format, a...), text.Width) {
			fmt.Fprintf(w, "%s\n", l)
		}
	}
	p("--- herd: %s, %v per setting", shape(d.Waiters, d.Mode, d.Pipes, d.InFlight), d.Duration)
	cols := d.columns()
	head := fmt.Sprintf("%-30s", "EPOLLEXCLUSIVE")
	for _, c := range cols {
		head += fmt.Sprintf(" %12s", OnOff(c.exclusive))
	}
	if d.Ratios != nil {
		head += fmt.Sprintf(" %8s", "off/on")
	}
	p("%s", head)
	for _, r := range figureRows {
		line := fmt.Sprintf("%-30s", r.label)
		for _, c := range cols {
			line += fmt.Sprintf(" %12s", r.show(r.value(c.figures)))
		}
		if d.Ratios != nil {
			v, ok := d.Ratios[r.key]
			s := "n/a"
			if ok {
				s = text.Ratio(v)
			}
			line += fmt.Sprintf(" %8s", s)
		}
		p("%s", line)
	}
	line := fmt.Sprintf("%-30s", "tokens per waiter (min..max)")
	for _, c := range cols {
		line += fmt.Sprintf(" %12s", fmt.Sprintf("%d..%d", c.figures.MinTokens, c.figures.MaxTokens))
	}
	p("%s", line)
	if d.Rounds > 1 {
		d.writeRoundsTokens(w, p)
	} else {
		for i := range d.Settings {
			s := &d.Settings[i]
			tk := s.Tokens
			state := "measured"
			if s.Interrupted {
				state = "interrupted"
			}
			tokensLine(w, s.Setup.Exclusive, tk, fmt.Sprintf("%v %s", s.Elapsed.Round(time.Millisecond), state))
		}
	}
	p("wake-ups: the waiters' voluntary context switches (sleeps ended) less timeouts; returns: waits that returned a ready pipe")
	for _, l := range record.MachineLines(d.Environment, false) {
		fmt.Fprintf(w, "%s\n", l)
	}
	return d.Head.WriteLines(w)
}

// tokensLine writes one setting's token accounting: "tokens off
// sent 1001  received 1000  drained 1  lost 0  (1.5s measured)".
func tokensLine(w io.Writer, exclusive bool, tk pipebench.Tokens, state string) {
	for _, l := range text.Labelled("tokens "+OnOff(exclusive), fmt.Sprintf("sent %d  received %d  drained %d  lost %d  (%s)",
		tk.Sent, tk.Received, tk.Drained, tk.Lost, state)) {
		fmt.Fprintf(w, "%s\n", l)
	}
}

// writeRoundsTokens writes, for a herd of several rounds, what the
// figures are the medians of, and each setting's token accounting summed
// over its repetitions.
func (d *Doc) writeRoundsTokens(w io.Writer, p func(string, ...any)) {
	var runs []string
	for _, m := range d.Medians {
		runs = append(runs, fmt.Sprintf("%s %d runs", OnOff(m.Exclusive), m.Runs))
	}
	p("medians of %d rounds (%s); each run a fresh setup, the order turning each round", d.Rounds, strings.Join(runs, ", "))
	for _, m := range d.Medians {
		var sent, received, drained uint64
		var lost int64
		var elapsed time.Duration
		reps, cut := 0, 0
		for i := range d.Settings {
			s := &d.Settings[i]
			if s.Setup.Exclusive != m.Exclusive {
				continue
			}
			reps++
			if s.Interrupted {
				cut++
			}
			sent, drained, lost = sent+s.Tokens.Sent, drained+s.Tokens.Drained, lost+s.Tokens.Lost
			received += s.Tokens.Received
			elapsed += s.Elapsed
		}
		state := fmt.Sprintf("%d runs, %v measured", reps, elapsed.Round(time.Millisecond))
		if cut > 0 {
			state += fmt.Sprintf(", %d interrupted", cut)
		}
		tokensLine(w, m.Exclusive, pipebench.Tokens{Sent: sent, Received: received, Drained: drained, Lost: lost}, state)
	}
}

// WriteCSV writes one row per setting: the setting, the table's figures
// (the keys of figureRows) and the token accounting. With several rounds it
// writes a row per repetition, with its round in a last column.
func (d *Doc) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := []string{"exclusive", "waiters", "mode", "pipes", "in_flight", "seconds", "interrupted"}
	for _, r := range figureRows {
		head = append(head, r.key)
	}
	head = append(head, "min_waiter_tokens", "max_waiter_tokens", "sent", "received", "drained", "lost")
	if d.Rounds > 1 {
		head = append(head, "round")
	}
	_ = cw.Write(head)
	u := func(x uint64) string { return strconv.FormatUint(x, 10) }
	for i := range d.Settings {
		s := &d.Settings[i]
		row := []string{OnOff(s.Setup.Exclusive), strconv.Itoa(d.Waiters), d.Mode.String(), strconv.Itoa(d.Pipes),
			strconv.Itoa(d.InFlight), strconv.FormatFloat(s.Elapsed.Seconds(), 'g', -1, 64), strconv.FormatBool(s.Interrupted)}
		for _, r := range figureRows {
			row = append(row, strconv.FormatFloat(r.value(&s.Figures), 'g', -1, 64))
		}
		f, tk := s.Figures, s.Tokens
		row = append(row, u(f.MinTokens), u(f.MaxTokens), u(tk.Sent), u(tk.Received), u(tk.Drained), strconv.FormatInt(tk.Lost, 10))
		if d.Rounds > 1 {
			row = append(row, strconv.Itoa(s.Setup.Round))
		}
		_ = cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}
