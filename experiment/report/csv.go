package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/pipebench/summary"
)

// CSV writes one row per interval, as the intervals come. The warmup
// column is 1 on the leading intervals that every summary leaves out
// (-warmup), 0 on the others.
type CSV struct {
	w      *csv.Writer
	setup  pipebench.Setup
	warmup int
	env    []string // the machine's columns, the same on every row
}

// CSVHeader names the columns.
var CSVHeader = []string{
	"run", "interval", "warmup", "backend", "pipes", "in_flight", "writer", "seconds",
	"events", "tokens", "calls", "empty_calls", "reads", "writes", "ctl_calls", "spurious", "wait_syscalls",
	"evts_per_sec", "tokens_per_sec", "samples_per_call",
	"reader_cpu_ns", "writer_thread_cpu_ns", "rest_cpu_ns", "process_cpu_ns", "writer_process_cpu_ns",
	"readers", "writers", "reader_events",
	"kernel", "cpu_model", "cores", "go_version", "gomaxprocs", "clock_source", "mitigations",
}

// NewCSV returns a CSV writer on w.
func NewCSV(w io.Writer) *CSV { return &CSV{w: csv.NewWriter(w)} }

func (c *CSV) flush() error {
	c.w.Flush()
	if err := c.w.Error(); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	return nil
}

// Start writes the header. Every row carries the machine, so that a row
// read alone still says where it was measured.
func (c *CSV) Start(d *Doc) error {
	c.warmup = d.Config.Warmup
	e := d.Environment
	c.env = []string{e.Kernel, e.CPUModel, strconv.Itoa(e.Cores), e.GoVersion, strconv.Itoa(e.GOMAXPROCS), e.ClockSource, e.MitigationSummary()}
	c.w.Write(CSVHeader)
	return c.flush()
}

// Setup remembers the run's setup for its rows.
func (c *CSV) Setup(run int, s pipebench.Setup) error {
	c.setup = s
	return nil
}

// Interval writes one row.
func (c *CSV) Interval(run int, iv pipebench.Interval) error {
	u := func(x uint64) string { return strconv.FormatUint(x, 10) }
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	spc := f(iv.SamplesPerCall)
	if c.setup.NoReadinessCalls {
		spc = ""
	}
	warmup := "0"
	if iv.Index <= c.warmup {
		warmup = "1"
	}
	row := []string{
		strconv.Itoa(run), strconv.Itoa(iv.Index), warmup, c.setup.Backend.Name, strconv.Itoa(c.setup.Pipes),
		strconv.Itoa(c.setup.InFlight), c.setup.Writer.String(), f(iv.Seconds),
		u(iv.Events), u(iv.Tokens), u(iv.Calls), u(iv.EmptyCalls), u(iv.Reads), u(iv.Writes), u(iv.Ctl), u(iv.Spurious), u(iv.WaitSyscalls),
		f(iv.EventsPerSec), f(iv.TokensPerSec), spc,
	}
	row = append(row, c.cpu(iv.CPU)...)
	row = append(row, strconv.Itoa(max(c.setup.Readers, 1)), strconv.Itoa(max(c.setup.Writers, 1)), readerEvents(iv.Readers))
	c.w.Write(append(row, c.env...))
	return c.flush()
}

// cpu is an interval's CPU columns: the reader thread, the writer thread
// (thread mode), the rest of this process (its other threads: the Go
// runtime's, or a Loop's goroutines), the process, and the writer process
// (process mode), in nanoseconds; empty where there is no such thread or
// process.
func (c *CSV) cpu(t pipebench.CPUTimes) []string {
	ns := func(d time.Duration) string { return strconv.FormatInt(int64(d), 10) }
	writer, writerProc := "", ""
	switch c.setup.Writer {
	case pipebench.WriterThread:
		writer = ns(t.Writer)
	case pipebench.WriterProcess:
		writerProc = ns(t.WriterProcess)
	}
	return []string{ns(t.Reader), writer, ns(t.Rest()), ns(t.Process), writerProc}
}

func (c *CSV) RunDone(*summary.Run) error { return nil }
func (c *CSV) Finish(*Doc) error          { return c.flush() }

// readerEvents is the reader_events cell: each reader's events in the
// interval, space-separated, when there are several readers or writers;
// empty otherwise.
func readerEvents(ev []uint64) string {
	each := make([]string, len(ev))
	for i, e := range ev {
		each[i] = strconv.FormatUint(e, 10)
	}
	return strings.Join(each, " ")
}
