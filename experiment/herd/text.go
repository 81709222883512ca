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
			rounds = fmt.Sprintf(", %d rounds (the order of the settings turning by one each round)", c.Rounds)
		}
		fmt.Fprintf(p.W, "herd: %s, EPOLLEXCLUSIVE %s, %v each%s\n", shape(c.Waiters, c.Mode, c.Pipes, c.InFlight), settingsText(c.Exclusive), c.Duration, rounds)
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

// settingsText names the EPOLLEXCLUSIVE settings measured, in order: "off,
// then on". Nil is the herd's default, off then on.
func settingsText(exclusive []bool) string {
	if exclusive == nil {
		exclusive = []bool{false, true}
	}
	names := make([]string, len(exclusive))
	for i, ex := range exclusive {
		names[i] = OnOff(ex)
	}
	return strings.Join(names, ", then ")
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
	{"wake-ups per token", "wakeups_per_token", func(f *Figures) float64 { return f.WakeupsPerToken }, text.Ratio},
	{"returns per token", "returns_per_token", func(f *Figures) float64 { return f.ReturnsPerToken }, text.Ratio},
	{"wasted returns per token", "wasted_returns_per_token", func(f *Figures) float64 { return f.WastedReturnsPerToken }, text.Ratio},
	{"wasted reads per token", "wasted_reads_per_token", func(f *Figures) float64 { return f.WastedReadsPerToken }, text.Ratio},
	{"waiters' sys CPU", "waiters_sys_ns", func(f *Figures) float64 { return f.WaiterSystem }, text.Nanos},
	{"waiters' sys CPU per token", "sys_ns_per_token", func(f *Figures) float64 { return f.SystemPerToken }, text.Nanos},
	{"waiters' user CPU per token", "user_ns_per_token", func(f *Figures) float64 { return f.UserPerToken }, text.Nanos},
	{"writer's sys CPU per token", "writer_sys_ns_per_token", func(f *Figures) float64 { return f.WriterSystemPerToken }, text.Nanos},
}

// WriteText writes the settings side by side, one figure a line, with the
// off/on ratio when both ran, then each setting's token accounting. With
// several rounds the figures are the medians of the repetitions, and a
// line says so.
func (d *Doc) WriteText(w io.Writer) error {
	p := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	p("--- herd: %s, %v measured per setting", shape(d.Waiters, d.Mode, d.Pipes, d.InFlight), d.Duration)
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
		d.writeRoundsTokens(p)
	} else {
		for i := range d.Settings {
			s := &d.Settings[i]
			tk := s.Tokens
			state := "measured"
			if s.Interrupted {
				state = "interrupted"
			}
			p("tokens, exclusive %-4s sent %d  received %d  drained %d  lost %d  (%v %s)", OnOff(s.Setup.Exclusive)+":",
				tk.Sent, tk.Received, tk.Drained, tk.Lost, s.Elapsed.Round(time.Millisecond), state)
		}
	}
	p("wake-ups: the waiters' voluntary context switches (sleeps ended) less timeouts; returns: waits that returned a ready pipe")
	lent := 0
	if len(d.Settings) > 0 {
		lent = d.Settings[0].Setup.GOMAXPROCS - d.Environment.GOMAXPROCS
	}
	p("machine        %s", record.MachineLine(d.Environment, lent, ""))
	return d.Head.WriteLines(w)
}

// writeRoundsTokens writes, for a herd of several rounds, what the
// figures are the medians of, and each setting's token accounting summed
// over its repetitions.
func (d *Doc) writeRoundsTokens(p func(string, ...any)) {
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
		p("tokens, exclusive %-4s sent %d  received %d  drained %d  lost %d  (%s)", OnOff(m.Exclusive)+":",
			sent, received, drained, lost, state)
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
