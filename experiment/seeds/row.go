package seeds

import "math"

// Row is one claim set beside this machine.
type Row struct {
	// Seed is the seed document's number ("001"); Claim says what it
	// claims, in pipebench's words.
	Seed  string `json:"seed"`
	Claim string `json:"claim"`
	// Unit is what Theirs and Here measure, the same for both.
	Unit string `json:"unit"`
	// Theirs is the seed's figure, nil when it published none; TheirsFrom
	// says how it comes from the seed's numbers and where they are.
	Theirs     *float64 `json:"theirs"`
	TheirsFrom string   `json:"theirs_from"`
	// Here is the figure measured on this machine, nil when none could
	// be; HereFrom says how it comes from the measurements.
	Here     *float64 `json:"here"`
	HereFrom string   `json:"here_from"`
	// Ratio is Here / Theirs, when both are set and the judgement compares
	// them.
	Ratio *float64 `json:"ratio"`
	Judgement
	// Command is the pipebench command that measures Here by hand.
	Command string `json:"command"`
	// Runs is how many runs of its steps Here rests on: 1 when each step
	// ran once, 0 when there is no figure here; with several rounds, Here
	// is the median of the figures of the Runs rounds that measured one.
	Runs int `json:"runs"`
	// Repetitions are every round's figure and verdict, when the steps ran
	// in several rounds; nil otherwise.
	Repetitions []RowRun `json:"repetitions,omitempty"`

	// judge judges a figure here as this row's figure was judged.
	judge func(float64) Judgement
}

// RowRun is one round's figure of a row: what the row would have said
// from that round's runs alone.
type RowRun struct {
	Round    int      `json:"round"`
	Here     *float64 `json:"here"`
	HereFrom string   `json:"here_from"`
	Verdict  Verdict  `json:"verdict"`
}

// num is x as an optional figure: nil when it is not a finite number.
func num(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// newRow fills a row's figures and their ratio.
func newRow(seed, claim, unit string, theirs float64, theirsFrom string, here float64, hereFrom string, j Judgement, command string) Row {
	r := Row{Seed: seed, Claim: claim, Unit: unit, TheirsFrom: theirsFrom, HereFrom: hereFrom, Judgement: j, Command: command}
	if usable(theirs) {
		r.Theirs = num(theirs)
	}
	if usable(here) {
		r.Here = num(here)
	}
	if r.Theirs != nil && r.Here != nil && j.Verdict != NotComparable {
		r.Ratio = num(here / theirs)
	}
	return r
}
