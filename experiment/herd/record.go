package herd

import (
	"time"

	"github.com/pipebench/pipebench/experiment/record"
)

// Doc is what pipebench herd reports: each setting with its figures,
// and off/on ratios when both ran. With several rounds, Settings are every
// repetition (each naming its round in setup.round), Medians each
// setting's figures across its repetitions, and the ratios are of the
// medians.
type Doc struct {
	record.Head
	Waiters  int           `json:"waiters"`
	Mode     Mode          `json:"mode"`
	Pipes    int           `json:"pipes"`
	InFlight int           `json:"in_flight"`
	Duration time.Duration `json:"duration_ns"`
	Warmup   int           `json:"warmup"`
	// Rounds is how many times each setting was measured (-count).
	Rounds   int                `json:"rounds"`
	Settings []Side             `json:"sides"`
	Medians  []Median           `json:"medians,omitempty"`
	Ratios   map[string]float64 `json:"ratios_off_over_on,omitempty"`
}

// Side is one setting's measurement with its figures.
type Side struct {
	Setting
	Figures Figures `json:"figures"`
}

// Median is one setting's figures across its repetitions: each the
// median of the repetitions' (MedianFigures). Runs is how many
// repetitions they rest on; interrupted ones are left out while any other
// was measured.
type Median struct {
	Exclusive bool    `json:"exclusive"`
	Runs      int     `json:"runs"`
	Figures   Figures `json:"figures"`
}

// NewDoc describes res, measured with cfg on env, leaving warmup
// intervals out of each setting's evts/sec summary.
func NewDoc(rec record.Head, cfg Config, warmup int, res *Result) *Doc {
	d := &Doc{Head: rec, Waiters: cfg.Waiters, Mode: cfg.Mode,
		Pipes: cfg.Pipes, InFlight: cfg.InFlight, Duration: cfg.Duration, Warmup: warmup, Rounds: max(res.Rounds, 1)}
	for _, s := range res.Settings {
		d.Settings = append(d.Settings, Side{Setting: s, Figures: s.Figures(warmup)})
	}
	if d.Rounds > 1 {
		d.Medians = medians(d.Settings)
	}
	cols := d.columns()
	if len(cols) == 2 && !cols[0].exclusive && cols[1].exclusive {
		d.Ratios = map[string]float64{}
		for _, r := range figureRows {
			if v, ok := ratioOf(r.value(cols[0].figures), r.value(cols[1].figures)); ok {
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
