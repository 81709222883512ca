package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/pipebench/summary"
)

// Bench writes the Go benchmark format, as `go test -bench -count N` does:
// one result line per run, so that `benchstat old.txt new.txt` compares
// runs, the independent samples of a configuration, and never treats one
// run's consecutive intervals as independent. The line's iteration count
// is the events of the run's intervals after warm-up; evts/sec is their
// median (the summary's), ns/event 1e9 over it; tokens/sec is over the same
// intervals and samples/call over the whole window, as in the summary, and
// so are syscalls/token and cpu-ns/token (the summary's per token line). A
// run left out of the summary across runs (failed, interrupted, no interval
// after warm-up, no events) gets a comment line saying so instead, which
// benchstat ignores.
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

// Start writes the configuration lines benchstat reads as keys, and the
// rule the result lines follow.
func (b *Bench) Start(d *Doc) error {
	b.warmup = d.Config.Warmup
	e := d.Environment
	b.printf("goos: linux\ngoarch: %s\npkg: github.com/pipebench/pipebench\ncpu: %s\n", e.Arch, e.CPUModel)
	b.printf("kernel: %s\ngo: %s\n", e.Kernel, e.GoVersion)
	b.printf("# one line per run: events and median evts/sec of its intervals after warm-up (-warmup %d)\n", b.warmup)
	return b.err
}

// Setup remembers the run's setup for its line.
func (b *Bench) Setup(run int, s pipebench.Setup) error {
	b.setup = s
	return nil
}

// Name is the benchmark name of a setup; a run with several readers or
// writers names them too (and -share), a -maxevents its cap and a -nest
// its depth, so that benchstat never takes two such runs for one
// configuration.
func Name(s pipebench.Setup) string {
	name := fmt.Sprintf("BenchmarkPipes/backend=%s/pipes=%d/inflight=%d/writer=%s", s.Backend.Name, s.Pipes, s.InFlight, s.Writer)
	if s.Readers > 1 || s.Writers > 1 {
		name += fmt.Sprintf("/readers=%d/writers=%d", s.Readers, s.Writers)
	}
	if s.Share {
		name += "/share"
	}
	if s.MaxEvents > 0 {
		name += fmt.Sprintf("/maxevents=%d", s.MaxEvents)
	}
	if s.Nest > 0 {
		name += fmt.Sprintf("/nest=%d", s.Nest)
	}
	return name
}

// Interval writes nothing: a run's line waits for its end.
func (b *Bench) Interval(int, pipebench.Interval) error { return b.err }

// RunDone writes the run's result line, or why it has none.
func (b *Bench) RunDone(r *summary.Run) error {
	if r.LeftOut != "" {
		b.printf("# run %d: no result line: %s\n", r.Index, r.LeftOut)
		return b.err
	}
	b.printf("%s\n", BenchLine(r))
	return b.err
}

// BenchLine is the result line of a run that is not left out.
func BenchLine(r *summary.Run) string {
	s := r.Summary
	var events uint64
	for _, iv := range r.Intervals[s.Warmup:] {
		events += iv.Events
	}
	median := s.EventsPerSec.Median
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s\t%d\t%.1f ns/event\t%.0f evts/sec\t%.0f tokens/sec", Name(r.Setup), events,
		1e9/median, median, s.TokensPerSec)
	if s.Applies {
		fmt.Fprintf(&sb, "\t%.4g samples/call", s.SamplesPerCall)
	}
	fmt.Fprintf(&sb, "\t%.4g syscalls/token\t%.0f cpu-ns/token", s.SyscallsPerToken, s.CPUPerToken)
	return sb.String()
}

func (b *Bench) Finish(*Doc) error { return b.err }
