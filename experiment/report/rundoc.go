package report

import (
	"io"

	"github.com/pipebench/pipebench/experiment/record"
	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/pipebench/summary"
)

// Doc is everything one invocation measured, the model behind every
// format: the JSON format is this struct. The command writes it while the
// runs go (Writer); WriteText and WriteCSV write a whole Doc, a record read
// back among them, as the command wrote it.
type Doc struct {
	record.Head
	Config  Config         `json:"config"`
	Runs    []summary.Run  `json:"runs"`
	Summary summary.Across `json:"summary"`
	// Error is the failure that ended the invocation, if any.
	Error string `json:"error,omitempty"`
}

// Config is the "config" block of a run's record: the run's
// configuration as the user gave it (pipebench.Config, every setting, the
// leading intervals the summaries leave out among them, in its own JSON),
// and how many times it ran, which is the invocation's, not the run's.
type Config struct {
	pipebench.Config
	Count int `json:"count"`
}

// NewConfig describes cfg, run count times.
func NewConfig(cfg *pipebench.Config, count int) Config {
	return Config{Config: *cfg, Count: count}
}

// AddRun appends a finished run (res may be partial when err is set) and
// refreshes the summary across runs.
func (d *Doc) AddRun(res *pipebench.Result, err error) *summary.Run {
	d.Runs = append(d.Runs, summary.NewRun(len(d.Runs)+1, res, err, d.Config.Warmup, d.Config.Duration))
	d.Summary = summary.SummarizeRuns(d.Runs)
	return &d.Runs[len(d.Runs)-1]
}

// Write writes d in format, one of Formats, as the command does while
// the runs go.
func Write(w io.Writer, format string, d *Doc) error {
	f, err := New(format, w)
	if err != nil {
		return err
	}
	return d.replay(f)
}

// WriteText writes d as the text format does while its runs go.
func (d *Doc) WriteText(w io.Writer) error { return Write(w, "text", d) }

// WriteTextVerbose writes d as the text format does with -v: every
// figure.
func (d *Doc) WriteTextVerbose(w io.Writer) error { return d.replay(&Text{W: w, Verbose: true}) }

// WriteCSV writes d as the csv format does while its runs go.
func (d *Doc) WriteCSV(w io.Writer) error { return Write(w, "csv", d) }

// replay writes d through f as the command does while the runs go: Start,
// then each run's setup and intervals (a run that failed before its setup
// has none) and its end, then Finish.
func (d *Doc) replay(f Writer) error {
	if err := f.Start(d); err != nil {
		return err
	}
	for i := range d.Runs {
		r := &d.Runs[i]
		if r.Result != nil {
			if err := f.Setup(r.Index, r.Setup); err != nil {
				return err
			}
			for _, iv := range r.Intervals {
				if err := f.Interval(r.Index, iv); err != nil {
					return err
				}
			}
		}
		if err := f.RunDone(r); err != nil {
			return err
		}
	}
	return f.Finish(d)
}
