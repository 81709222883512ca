package report_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pipebench/pipebench/epoll"
	"github.com/pipebench/pipebench/experiment/report"
	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/pipebench/pipebenchtest"
	"github.com/pipebench/pipebench/poll"
	fdselect "github.com/pipebench/pipebench/select"
	"github.com/pipebench/pipebench/uring"
)

// runDoc runs cfg runs times, its summaries leaving one interval out, and
// returns their document, every result held to its invariants
// (Result.CheckValid).
func runDoc(t *testing.T, cfg pipebench.Config, runs int) *report.Doc {
	t.Helper()
	cfg.Warmup = 1
	d := &report.Doc{Config: report.NewConfig(&cfg, runs)}
	for range runs {
		res, err := pipebench.Run(cfg, pipebench.Observers{})
		pipebenchtest.SkipIfRefused(t, err)
		if err != nil {
			t.Fatal(err)
		}
		if err := res.CheckValid(); err != nil {
			t.Error(err)
		}
		d.AddRun(res, nil)
	}
	return d
}

// checkReadBack writes d in every format and reads its record back: the
// same runs, results and summaries.
func checkReadBack(t *testing.T, d *report.Doc) {
	t.Helper()
	for _, f := range report.Formats {
		var b bytes.Buffer
		if err := report.Write(&b, f, d); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		if f != "json" {
			continue
		}
		var back report.Doc
		if err := json.Unmarshal(b.Bytes(), &back); err != nil {
			t.Fatal(err)
		}
		for i, r := range back.Runs {
			w := &d.Runs[i]
			if r.Totals != w.Totals || r.Tokens != w.Tokens || !reflect.DeepEqual(r.Summary, w.Summary) || r.LeftOut != w.LeftOut {
				t.Errorf("run %d read back: totals %+v tokens %+v summary %+v; want %+v %+v %+v", i+1, r.Totals, r.Tokens, r.Summary,
					w.Totals, w.Tokens, w.Summary)
			}
		}
	}
}

// levelTriggered is the invariant of a level-triggered backend's count of
// ready pipes, held against the reader's own reads: it reads every ready
// pipe once, so the ready counts of its calls add up to its events and its
// reads that found nothing.
func levelTriggered(res *pipebench.Result) error {
	t := res.Totals
	if got, want := res.PerCall.Sum(), t.Events+t.Spurious; got != want {
		return fmt.Errorf("ready pipes over all calls %d, want events %d + spurious reads %d", got, t.Events, t.Spurious)
	}
	if t.Reads != t.Events+t.Spurious {
		return fmt.Errorf("reads %d, want events %d + spurious reads %d", t.Reads, t.Events, t.Spurious)
	}
	return nil
}

// TestRealRuns: short real runs of several backends and writer modes hold
// their invariants, the level-triggered count among them, are written in
// every format and read back.
func TestRealRuns(t *testing.T) {
	backends := []*pipebench.Factory{&epoll.LevelFactory, &poll.Factory, &fdselect.Factory}
	for _, be := range backends {
		for _, writer := range []pipebench.WriterMode{pipebench.WriterSelf, pipebench.WriterThread} {
			t.Run(fmt.Sprintf("%s/%s", be.Name, writer), func(t *testing.T) {
				t.Parallel()
				cfg := pipebench.Config{
					Workload:  pipebench.Workload{Pipes: 30, InFlight: 3, RouteSeed: 5},
					Readiness: pipebench.Readiness{Backend: be},
					Threads:   pipebench.Threads{Writer: writer},
					Window:    pipebench.Window{Duration: 400 * time.Millisecond, Interval: 100 * time.Millisecond},
				}
				d := runDoc(t, cfg, 2)
				for _, r := range d.Runs {
					if err := levelTriggered(r.Result); err != nil {
						t.Errorf("run %d: %v", r.Index, err)
					}
				}
				checkReadBack(t, d)
			})
		}
	}
}

// TestRealRunLatency: in latency mode the latency histogram holds one
// value per token received.
func TestRealRunLatency(t *testing.T) {
	cfg := pipebench.Config{
		Workload:  pipebench.Workload{Pipes: 30, InFlight: 3, RouteSeed: 5, Latency: true},
		Readiness: pipebench.Readiness{Backend: &epoll.LevelFactory},
		Threads:   pipebench.Threads{Writer: pipebench.WriterThread},
		Window:    pipebench.Window{Duration: 300 * time.Millisecond, Interval: 100 * time.Millisecond},
	}
	d := runDoc(t, cfg, 1)
	if s, res := d.Runs[0].Summary, d.Runs[0].Result; s.Latency == nil || s.Latency.Tokens != res.Tokens.Received {
		t.Errorf("latency summary %+v for %d tokens", s.Latency, res.Tokens.Received)
	}
}

// TestRingRuns: a driver whose io_uring does the reads and writes
// (uring-rw) holds its invariants too, and its system calls per token and
// completions per enter are counted.
func TestRingRuns(t *testing.T) {
	for _, writer := range []pipebench.WriterMode{pipebench.WriterSelf, pipebench.WriterThread} {
		t.Run(writer.String(), func(t *testing.T) {
			cfg := pipebench.Config{
				Workload:  pipebench.Workload{Pipes: 30, InFlight: 3, RouteSeed: 5},
				Readiness: pipebench.Readiness{Backend: &uring.RWFactory},
				Threads:   pipebench.Threads{Writer: writer},
				Window:    pipebench.Window{Duration: 400 * time.Millisecond, Interval: 100 * time.Millisecond},
			}
			d := runDoc(t, cfg, 1)
			if s := d.Runs[0].Summary; s.CompletionsPerEnter <= 0 || s.SyscallsPerToken <= 0 {
				t.Errorf("completions per enter %v, system calls per token %v: want both above 0", s.CompletionsPerEnter, s.SyscallsPerToken)
			}
			checkReadBack(t, d)
		})
	}
}

// TestRealRunThreads: a real run with several readers and writers holds
// its invariants, per reader and writer among them, has a figure per
// reader, and names them in its bench line, so that benchstat keeps the
// configurations apart.
func TestRealRunThreads(t *testing.T) {
	cfg := pipebench.Config{
		Workload:  pipebench.Workload{Pipes: 12, InFlight: 6, RouteSeed: 5, Source: pipebench.SourceEventfd},
		Readiness: pipebench.Readiness{Backend: &epoll.LevelFactory},
		Threads:   pipebench.Threads{Writer: pipebench.WriterThread, Readers: 2, Writers: 3},
		Window:    pipebench.Window{Duration: 400 * time.Millisecond, Interval: 100 * time.Millisecond},
	}
	d := runDoc(t, cfg, 1)
	r := d.Runs[0]
	if rd := r.Summary.Readers; rd == nil || len(rd.EventsPerSec) != 2 {
		t.Errorf("per-reader figures %+v, want 2 readers'", rd)
	}
	if name := report.Name(r.Setup); !strings.HasSuffix(name, "/readers=2/writers=3") {
		t.Errorf("bench name %s: want the readers and writers in it", name)
	}
	checkReadBack(t, d)
}
