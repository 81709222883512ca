package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/pipebench/pipebench/pipebench"
)

// Bench writes the Go benchmark format, one result line per interval after
// warm-up, so that `benchstat old.txt new.txt` compares two invocations:
// benchstat treats the intervals as samples of one benchmark named after
// the configuration.
type Bench struct {
	W      io.Writer
	warmup int
	setup  pipebench.Setup
	err    error
}

func (b *Bench) printf(format string, a ...any) {
	if b.err == nil {
		_, b.err = fmt.Fprintf(b.W, format, a...)
	}
}

// Start writes the configuration lines benchstat reads as keys.
func (b *Bench) Start(d *Document) error {
	b.warmup = d.Config.Warmup
	e := d.Environment
	b.printf("goos: linux\ngoarch: %s\npkg: github.com/pipebench/pipebench\ncpu: %s\n", e.Arch, e.CPUModel)
	b.printf("kernel: %s\ngo: %s\n", e.Kernel, e.GoVersion)
	return b.err
}

// Setup remembers the run's setup for its lines.
func (b *Bench) Setup(run int, s pipebench.Setup) error {
	b.setup = s
	return nil
}

// Name is the benchmark name of a setup.
func Name(s pipebench.Setup) string {
	return fmt.Sprintf("BenchmarkPipes/backend=%s/pipes=%d/inflight=%d/writer=%s", s.Backend, s.Pipes, s.InFlight, s.Writer)
}

// Interval writes one result line; warm-up intervals and intervals without
// an event are left out (benchstat needs positive iteration counts).
func (b *Bench) Interval(run int, iv pipebench.Interval) error {
	if iv.Index <= b.warmup || iv.Events == 0 {
		return nil
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s\t%d\t%.1f ns/event\t%.0f evts/sec\t%.0f tokens/sec", Name(b.setup), iv.Events,
		iv.Seconds*1e9/float64(iv.Events), iv.EventsPerSec, iv.TokensPerSec)
	if !b.setup.NoWaitCall {
		fmt.Fprintf(&sb, "\t%.4g samples/call", iv.SamplesPerCall)
	}
	b.printf("%s\n", sb.String())
	return b.err
}

func (b *Bench) RunDone(*Run) error     { return b.err }
func (b *Bench) Finish(*Document) error { return b.err }
