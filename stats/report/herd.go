package report

import (
	"encoding/csv"
	"fmt"
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
}

// Setup writes the head line (once: it waits until the run is known to fit,
// so that bad input leaves the output empty) and the setting's setup line.
func (p *HerdProgress) Setup(s herd.Setup) {
	c := &p.Config
	if !p.headed {
		fmt.Fprintf(p.W, "herd: %s, EPOLLEXCLUSIVE %s, %v each\n", herdShape(c.Waiters, c.Mode, c.Pipes, c.InFlight), herdSettings(c.Exclusive), c.Duration)
		p.headed = true
	}
	fmt.Fprintf(p.W, "exclusive %s: %d waiters ready in %v (GOMAXPROCS %d)\n", herd.OnOff(s.Exclusive), s.Waiters, s.Took.Round(time.Millisecond), s.GOMAXPROCS)
}

// Interval writes one interval's line.
func (p *HerdProgress) Interval(iv herd.Interval) {
	fmt.Fprintf(p.W, "exclusive %s: %.0f evts/sec %s returns per token\n", herd.OnOff(iv.Exclusive), iv.EventsPerSec, ratio4(iv.ReturnsPerToken))
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
// and off/on ratios when both ran.
type HerdDoc struct {
	Record
	Waiters  int                `json:"waiters"`
	Mode     herd.Mode          `json:"mode"`
	Pipes    int                `json:"pipes"`
	InFlight int                `json:"in_flight"`
	Duration time.Duration      `json:"duration_ns"`
	Warmup   int                `json:"warmup"`
	Settings []HerdSetting      `json:"sides"`
	Ratios   map[string]float64 `json:"ratios_off_over_on,omitempty"`
}

// HerdSetting is one setting's measurement with its figures.
type HerdSetting struct {
	herd.Setting
	Figures herd.Figures `json:"figures"`
}

// NewHerdDoc describes res, measured with cfg on env, leaving warmup
// intervals out of each setting's evts/sec summary.
func NewHerdDoc(rec Record, cfg herd.Config, warmup int, res *herd.Result) *HerdDoc {
	d := &HerdDoc{Record: rec, Waiters: cfg.Waiters, Mode: cfg.Mode,
		Pipes: cfg.Pipes, InFlight: cfg.InFlight, Duration: cfg.Duration, Warmup: warmup}
	for _, s := range res.Settings {
		d.Settings = append(d.Settings, HerdSetting{Setting: s, Figures: s.Figures(warmup)})
	}
	if len(d.Settings) == 2 && !d.Settings[0].Setup.Exclusive && d.Settings[1].Setup.Exclusive {
		d.Ratios = map[string]float64{}
		for _, r := range herdRows {
			if v, ok := ratioOf(r.value(&d.Settings[0]), r.value(&d.Settings[1])); ok {
				d.Ratios[r.key] = v
			}
		}
	}
	return d
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
	value func(s *HerdSetting) float64
	show  func(float64) string
}

var herdRows = []herdRow{
	{"evts/sec (median)", "evts_per_sec_median", func(s *HerdSetting) float64 { return s.Figures.EventsPerSec.Median }, wholeRate},
	{"tokens/sec", "tokens_per_sec", func(s *HerdSetting) float64 { return s.Figures.TokensPerSec }, wholeRate},
	{"wake-ups per token", "wakeups_per_token", func(s *HerdSetting) float64 { return s.Figures.WakeupsPerToken }, ratio4},
	{"returns per token", "returns_per_token", func(s *HerdSetting) float64 { return s.Figures.ReturnsPerToken }, ratio4},
	{"wasted returns per token", "wasted_returns_per_token", func(s *HerdSetting) float64 { return s.Figures.WastedReturnsPerToken }, ratio4},
	{"wasted reads per token", "wasted_reads_per_token", func(s *HerdSetting) float64 { return s.Figures.WastedReadsPerToken }, ratio4},
	{"waiters' sys CPU", "waiters_sys_ns", func(s *HerdSetting) float64 { return float64(s.WaiterUsage.System) }, Nanos},
	{"waiters' sys CPU per token", "sys_ns_per_token", func(s *HerdSetting) float64 { return s.Figures.SystemPerToken }, Nanos},
	{"waiters' user CPU per token", "user_ns_per_token", func(s *HerdSetting) float64 { return s.Figures.UserPerToken }, Nanos},
	{"writer's sys CPU per token", "writer_sys_ns_per_token", func(s *HerdSetting) float64 { return s.Figures.WriterSystemPerToken }, Nanos},
}

// WriteText writes the settings side by side, one figure a line, with the
// off/on ratio when both ran, then each setting's token accounting.
func (d *HerdDoc) WriteText(w io.Writer) error {
	p := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	p("--- herd: %s, %v measured per setting", herdShape(d.Waiters, d.Mode, d.Pipes, d.InFlight), d.Duration)
	head := fmt.Sprintf("%-30s", "EPOLLEXCLUSIVE")
	for i := range d.Settings {
		head += fmt.Sprintf(" %12s", herd.OnOff(d.Settings[i].Setup.Exclusive))
	}
	if d.Ratios != nil {
		head += fmt.Sprintf(" %8s", "off/on")
	}
	p("%s", head)
	for _, r := range herdRows {
		line := fmt.Sprintf("%-30s", r.label)
		for i := range d.Settings {
			line += fmt.Sprintf(" %12s", r.show(r.value(&d.Settings[i])))
		}
		if d.Ratios != nil {
			v, ok := d.Ratios[r.key]
			s := "n/a"
			if ok {
				s = ratio4(v)
			}
			line += fmt.Sprintf(" %8s", s)
		}
		p("%s", line)
	}
	line := fmt.Sprintf("%-30s", "tokens per waiter (min..max)")
	for i := range d.Settings {
		f := d.Settings[i].Figures
		line += fmt.Sprintf(" %12s", fmt.Sprintf("%d..%d", f.MinTokens, f.MaxTokens))
	}
	p("%s", line)
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
	p("wake-ups: the waiters' voluntary context switches (sleeps ended) less timeouts; returns: waits that returned a ready pipe")
	lent := 0
	if len(d.Settings) > 0 {
		lent = d.Settings[0].Setup.GOMAXPROCS - d.Environment.GOMAXPROCS
	}
	p("machine        %s", MachineLine(d.Environment, lent, ""))
	return writeRecordLines(w, &d.Record)
}

// WriteCSV writes one row per setting: the setting, the table's figures
// (the keys of herdRows) and the token accounting.
func (d *HerdDoc) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := []string{"exclusive", "waiters", "mode", "pipes", "in_flight", "seconds", "interrupted"}
	for _, r := range herdRows {
		head = append(head, r.key)
	}
	_ = cw.Write(append(head, "min_waiter_tokens", "max_waiter_tokens", "sent", "received", "drained", "lost"))
	u := func(x uint64) string { return strconv.FormatUint(x, 10) }
	for i := range d.Settings {
		s := &d.Settings[i]
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
