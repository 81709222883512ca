package report

import (
	"encoding/csv"
	"fmt"
	"github.com/pipebench/pipebench/experiment/record"
	"github.com/pipebench/pipebench/experiment/text"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/pipebench/pipebench/experiment/herd"
)

// HerdProgress writes the text format's lines while a herd runs: a head
// line when the first setting is ready, then a line for each setting's
// setup and one for each interval. Use its methods as herd.Config's OnSetup
// and OnInterval.
type HerdProgress struct {
	W      io.Writer
	Config herd.Config
	headed bool
	round  string // "round 2/5: " while a run of several rounds is in round 2
}

// Setup writes the head line (once: it waits until the run is known to fit,
// so that bad input leaves the output empty) and the setting's setup line.
func (p *HerdProgress) Setup(s herd.Setup) {
	c := &p.Config
	if !p.headed {
		rounds := ""
		if c.Rounds > 1 {
			rounds = fmt.Sprintf(", %d rounds (the order of the settings turning by one each round)", c.Rounds)
		}
		fmt.Fprintf(p.W, "herd: %s, EPOLLEXCLUSIVE %s, %v each%s\n", herdShape(c.Waiters, c.Mode, c.Pipes, c.InFlight), herdSettings(c.Exclusive), c.Duration, rounds)
		p.headed = true
	}
	if s.Round > 0 {
		p.round = fmt.Sprintf("round %d/%d: ", s.Round, c.Rounds)
	}
	fmt.Fprintf(p.W, "%sexclusive %s: %d waiters ready in %v (GOMAXPROCS %d)\n", p.round, herd.OnOff(s.Exclusive), s.Waiters, s.Took.Round(time.Millisecond), s.GOMAXPROCS)
}

// Interval writes one interval's line.
func (p *HerdProgress) Interval(iv herd.Interval) {
	fmt.Fprintf(p.W, "%sexclusive %s: %.0f evts/sec %s returns per token\n", p.round, herd.OnOff(iv.Exclusive), iv.EventsPerSec, text.Ratio(iv.ReturnsPerToken))
}

// herdSettings names the EPOLLEXCLUSIVE settings measured, in order: "off,
// then on". Nil is the herd's default, off then on.
func herdSettings(exclusive []bool) string {
	if exclusive == nil {
		exclusive = []bool{false, true}
	}
	names := make([]string, len(exclusive))
	for i, ex := range exclusive {
		names[i] = herd.OnOff(ex)
	}
	return strings.Join(names, ", then ")
}

func herdShape(waiters int, mode herd.Mode, pipes, inFlight int) string {
	return fmt.Sprintf("%d waiter %s, %d pipes, %d tokens in flight", waiters, mode, pipes, inFlight)
}

// HerdDoc is what pipebench herd reports: each setting with its figures,
// and off/on ratios when both ran. With several rounds, Settings are every
// repetition (each naming its round in setup.round), Medians each
// setting's figures across its repetitions, and the ratios are of the
// medians.
type HerdDoc struct {
	record.Head
	Waiters  int           `json:"waiters"`
	Mode     herd.Mode     `json:"mode"`
	Pipes    int           `json:"pipes"`
	InFlight int           `json:"in_flight"`
	Duration time.Duration `json:"duration_ns"`
	Warmup   int           `json:"warmup"`
	// Rounds is how many times each setting was measured (-count).
	Rounds   int                `json:"rounds"`
	Settings []HerdSetting      `json:"sides"`
	Medians  []HerdMedian       `json:"medians,omitempty"`
	Ratios   map[string]float64 `json:"ratios_off_over_on,omitempty"`
}

// HerdSetting is one setting's measurement with its figures.
type HerdSetting struct {
	herd.Setting
	Figures herd.Figures `json:"figures"`
}

// HerdMedian is one setting's figures across its repetitions: each the
// median of the repetitions' (herd.MedianFigures). Runs is how many
// repetitions they rest on; interrupted ones are left out while any other
// was measured.
type HerdMedian struct {
	Exclusive bool         `json:"exclusive"`
	Runs      int          `json:"runs"`
	Figures   herd.Figures `json:"figures"`
}

// NewHerdDoc describes res, measured with cfg on env, leaving warmup
// intervals out of each setting's evts/sec summary.
func NewHerdDoc(rec record.Head, cfg herd.Config, warmup int, res *herd.Result) *HerdDoc {
	d := &HerdDoc{Head: rec, Waiters: cfg.Waiters, Mode: cfg.Mode,
		Pipes: cfg.Pipes, InFlight: cfg.InFlight, Duration: cfg.Duration, Warmup: warmup, Rounds: max(res.Rounds, 1)}
	for _, s := range res.Settings {
		d.Settings = append(d.Settings, HerdSetting{Setting: s, Figures: s.Figures(warmup)})
	}
	if d.Rounds > 1 {
		d.Medians = herdMedians(d.Settings)
	}
	cols := d.columns()
	if len(cols) == 2 && !cols[0].exclusive && cols[1].exclusive {
		d.Ratios = map[string]float64{}
		for _, r := range herdRows {
			if v, ok := ratioOf(r.value(cols[0].figures), r.value(cols[1].figures)); ok {
				d.Ratios[r.key] = v
			}
		}
	}
	return d
}

// Refigure computes d's figures, medians and ratios again from the raw
// counts of its settings, as NewHerdDoc did: a record read back renders
// from what was measured, not from figures an older pipebench derived.
func (d *HerdDoc) Refigure() {
	res := &herd.Result{Rounds: d.Rounds}
	for _, s := range d.Settings {
		res.Settings = append(res.Settings, s.Setting)
	}
	cfg := herd.Config{Waiters: d.Waiters, Mode: d.Mode, Pipes: d.Pipes, InFlight: d.InFlight, Duration: d.Duration}
	*d = *NewHerdDoc(d.Head, cfg, d.Warmup, res)
}

// herdMedians groups the repetitions by setting, in the order the settings
// first ran, and takes each setting's medians.
func herdMedians(reps []HerdSetting) []HerdMedian {
	var order []bool
	all, measured := map[bool][]herd.Figures{}, map[bool][]herd.Figures{}
	for i := range reps {
		ex := reps[i].Setup.Exclusive
		if _, seen := all[ex]; !seen {
			order = append(order, ex)
		}
		all[ex] = append(all[ex], reps[i].Figures)
		if !reps[i].Interrupted {
			measured[ex] = append(measured[ex], reps[i].Figures)
		}
	}
	var ms []HerdMedian
	for _, ex := range order {
		fs := measured[ex]
		if len(fs) == 0 {
			fs = all[ex]
		}
		ms = append(ms, HerdMedian{Exclusive: ex, Runs: len(fs), Figures: herd.MedianFigures(fs)})
	}
	return ms
}

// herdColumn is one column of the table: a setting and the figures shown.
type herdColumn struct {
	exclusive bool
	figures   *herd.Figures
}

// columns are the table's columns: each setting measured once, or each
// setting's medians.
func (d *HerdDoc) columns() []herdColumn {
	var cols []herdColumn
	if d.Rounds > 1 {
		for i := range d.Medians {
			cols = append(cols, herdColumn{d.Medians[i].Exclusive, &d.Medians[i].Figures})
		}
		return cols
	}
	for i := range d.Settings {
		cols = append(cols, herdColumn{d.Settings[i].Setup.Exclusive, &d.Settings[i].Figures})
	}
	return cols
}

// ratioOf is a / b; ok is false when b is 0, where the ratio does not
// apply: the text says n/a and the JSON leaves the key out (it carries no
// infinity, and a 0 would read as a measured ratio).
func ratioOf(a, b float64) (v float64, ok bool) {
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
	value func(f *herd.Figures) float64
	show  func(float64) string
}

var herdRows = []herdRow{
	{"evts/sec (median)", "evts_per_sec_median", func(f *herd.Figures) float64 { return f.EventsPerSec.Median }, text.Whole},
	{"tokens/sec", "tokens_per_sec", func(f *herd.Figures) float64 { return f.TokensPerSec }, text.Whole},
	{"wake-ups per token", "wakeups_per_token", func(f *herd.Figures) float64 { return f.WakeupsPerToken }, text.Ratio},
	{"returns per token", "returns_per_token", func(f *herd.Figures) float64 { return f.ReturnsPerToken }, text.Ratio},
	{"wasted returns per token", "wasted_returns_per_token", func(f *herd.Figures) float64 { return f.WastedReturnsPerToken }, text.Ratio},
	{"wasted reads per token", "wasted_reads_per_token", func(f *herd.Figures) float64 { return f.WastedReadsPerToken }, text.Ratio},
	{"waiters' sys CPU", "waiters_sys_ns", func(f *herd.Figures) float64 { return f.WaiterSystem }, text.Nanos},
	{"waiters' sys CPU per token", "sys_ns_per_token", func(f *herd.Figures) float64 { return f.SystemPerToken }, text.Nanos},
	{"waiters' user CPU per token", "user_ns_per_token", func(f *herd.Figures) float64 { return f.UserPerToken }, text.Nanos},
	{"writer's sys CPU per token", "writer_sys_ns_per_token", func(f *herd.Figures) float64 { return f.WriterSystemPerToken }, text.Nanos},
}

// WriteText writes the settings side by side, one figure a line, with the
// off/on ratio when both ran, then each setting's token accounting. With
// several rounds the figures are the medians of the repetitions, and a
// line says so.
func (d *HerdDoc) WriteText(w io.Writer) error {
	p := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	p("--- herd: %s, %v measured per setting", herdShape(d.Waiters, d.Mode, d.Pipes, d.InFlight), d.Duration)
	cols := d.columns()
	head := fmt.Sprintf("%-30s", "EPOLLEXCLUSIVE")
	for _, c := range cols {
		head += fmt.Sprintf(" %12s", herd.OnOff(c.exclusive))
	}
	if d.Ratios != nil {
		head += fmt.Sprintf(" %8s", "off/on")
	}
	p("%s", head)
	for _, r := range herdRows {
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
			p("tokens, exclusive %-4s sent %d  received %d  drained %d  lost %d  (%v %s)", herd.OnOff(s.Setup.Exclusive)+":",
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
func (d *HerdDoc) writeRoundsTokens(p func(string, ...any)) {
	var runs []string
	for _, m := range d.Medians {
		runs = append(runs, fmt.Sprintf("%s %d runs", herd.OnOff(m.Exclusive), m.Runs))
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
		p("tokens, exclusive %-4s sent %d  received %d  drained %d  lost %d  (%s)", herd.OnOff(m.Exclusive)+":",
			sent, received, drained, lost, state)
	}
}

// WriteCSV writes one row per setting: the setting, the table's figures
// (the keys of herdRows) and the token accounting. With several rounds it
// writes a row per repetition, with its round in a last column.
func (d *HerdDoc) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := []string{"exclusive", "waiters", "mode", "pipes", "in_flight", "seconds", "interrupted"}
	for _, r := range herdRows {
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
		row := []string{herd.OnOff(s.Setup.Exclusive), strconv.Itoa(d.Waiters), d.Mode.String(), strconv.Itoa(d.Pipes),
			strconv.Itoa(d.InFlight), strconv.FormatFloat(s.Elapsed.Seconds(), 'g', -1, 64), strconv.FormatBool(s.Interrupted)}
		for _, r := range herdRows {
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
