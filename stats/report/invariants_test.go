package report_test

import (
	"errors"
	"fmt"
	"github.com/pipebench/pipebench/experiment/record"
	"strings"
	"testing"
	"time"

	"github.com/pipebench/pipebench/epoll"
	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/pipebench/pipebenchtest"
	"github.com/pipebench/pipebench/pipebench/summary"
	"github.com/pipebench/pipebench/poll"
	fdselect "github.com/pipebench/pipebench/select"
	"github.com/pipebench/pipebench/stats"
	"github.com/pipebench/pipebench/stats/report"
	"github.com/pipebench/pipebench/stats/report/reporttest"
	"github.com/pipebench/pipebench/uring"
)

// checkFormats renders d in every format and checks each output's numbers
// against d, and d itself.
func checkFormats(t *testing.T, d *report.Document) {
	t.Helper()
	if err := reporttest.CheckDocument(d); err != nil {
		t.Errorf("document: %v", err)
	}
	for _, f := range report.Formats {
		out := renderAll(t, f, d)
		var err error
		switch f {
		case "text":
			err = reporttest.CheckTextAgainst(string(out), d)
		case "json":
			err = reporttest.CheckJSONAgainst(out, d)
		case "csv":
			err = reporttest.CheckCSVAgainst(out, d)
		case "bench":
			err = reporttest.CheckBenchAgainst(out, d)
		default:
			t.Fatalf("format %s has no check", f)
		}
		if err != nil {
			t.Errorf("%s output:\n%s\n%v", f, out, err)
		}
	}
}

// renderAll writes every run of d through format f, as the command does.
func renderAll(t *testing.T, f string, d *report.Document) []byte {
	t.Helper()
	var b strings.Builder
	w, err := report.New(f, &b)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(d); err != nil {
		t.Fatal(err)
	}
	for i := range d.Runs {
		r := &d.Runs[i]
		if r.Result == nil {
			continue
		}
		w.Setup(r.Index, r.Setup)
		for _, iv := range r.Intervals {
			if err := w.Interval(r.Index, iv); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.RunDone(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(d); err != nil {
		t.Fatal(err)
	}
	return []byte(b.String())
}

// TestRealRunsInvariants: short real runs of several backends and writer
// modes hold every invariant, and so does every format's output of them.
func TestRealRunsInvariants(t *testing.T) {
	backends := []*pipebench.Factory{&epoll.LevelFactory, &poll.Factory, &fdselect.Factory}
	for _, be := range backends {
		for _, writer := range []pipebench.WriterMode{pipebench.WriterSelf, pipebench.WriterThread} {
			t.Run(fmt.Sprintf("%s/%s", be.Name, writer), func(t *testing.T) {
				t.Parallel()
				cfg := pipebench.Config{
					Pipes: 30, InFlight: 3, Backend: be, Writer: writer, Seed: 5,
					Duration: 400 * time.Millisecond, Interval: 100 * time.Millisecond,
				}
				d := &report.Document{Head: record.Head{Tool: "pipebench"}, Config: report.NewConfig(&cfg, 2, 1)}
				for range 2 {
					res, err := pipebench.Run(cfg)
					if err != nil {
						t.Fatal(err)
					}
					if err := reporttest.Check(res, summary.Summarize(res, 1), 1); err != nil {
						t.Error(err)
					}
					if err := reporttest.CheckLevelTriggered(res); err != nil {
						t.Error(err)
					}
					d.AddRun(res, nil)
				}
				checkFormats(t, d)
			})
		}
	}
}

// TestRealRunLatencyInvariants: in latency mode the latency histogram holds
// one value per token received, on top of the rest.
func TestRealRunLatencyInvariants(t *testing.T) {
	cfg := pipebench.Config{
		Pipes: 30, InFlight: 3, Backend: &epoll.LevelFactory, Writer: pipebench.WriterThread, Seed: 5, Latency: true,
		Duration: 300 * time.Millisecond, Interval: 100 * time.Millisecond,
	}
	res, err := pipebench.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := summary.Summarize(res, 1)
	if err := reporttest.Check(res, s, 1); err != nil {
		t.Error(err)
	}
	if s.Latency == nil || s.Latency.Tokens != res.Tokens.Received {
		t.Errorf("latency summary %+v for %d tokens", s.Latency, res.Tokens.Received)
	}
}

// TestFixtureNumbers checks each format's numbers against the hand-made
// result, whose counts are known: 4 intervals of 90000..120000 events, 84000
// readiness calls of which 8 empty, every full call with 5 pipes ready.
func TestFixtureNumbers(t *testing.T) {
	d := reporttest.FixtureDoc()
	d.AddRun(reporttest.Fixture(), nil)
	checkFormats(t, d)

	for f, want := range map[string][]string{
		"text": {
			"evts/sec       median 110000  mean 110000  sd 10000  min 100000  max 120000\n",
			"(3 intervals, 1 warm-up left out)\n",
			"samples/call   5.00048  (84000 readiness calls, 8 empty)\n",
			"ready/call     mean 5  p50 5  p90 5  p99 5  max 5\n",
			"tokens         sent 462007  received 462000  drained 7  lost 0\n",
			// (42000 waits + 420000 reads + 84000 writes + the writer's
			// 462007 writes, 42000 reads, 21000 waits) / 462000 tokens;
			// 910 ms of CPU / 462000 tokens.
			"per token      syscalls 2.318  cpu 1.97µs\n",
		},
		"json": {`"calls": 84000,`, `"empty": 8,`, `"runs_summarized": 1,`, `"runs_left_out": 0,`},
		"csv":  {"\n1,1,1,epoll,", "\n1,2,0,epoll,1000,10,thread,1,100000,110000,20000,2,100000,20000,0,0,10000,100000,110000,"},
		// 100000+110000+120000 events after warm-up; 1e9/110000 ns/event.
		"bench": {"\nBenchmarkPipes/backend=epoll/pipes=1000/inflight=10/writer=thread\t330000\t9090.9 ns/event\t110000 evts/sec\t121000 tokens/sec\t5 samples/call\t2.318 syscalls/token\t1970 cpu-ns/token\n"},
	} {
		out := string(renderAll(t, f, d))
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s output lacks %q:\n%s", f, w, out)
			}
		}
	}
}

// TestAcrossLeavesOut: the summary across runs leaves out a failed run and
// an interrupted one, however fast their partial intervals were, says so
// in every format, and the bench format gives them no line.
func TestAcrossLeavesOut(t *testing.T) {
	d := reporttest.FixtureDoc()
	d.Config.Count = 4
	d.AddRun(reporttest.Fixture(), nil)
	// fast is the fixture with ten times the counts.
	fast := func() *pipebench.Result {
		r := reporttest.Fixture()
		var tot pipebench.Counts
		for i := range r.Intervals {
			iv := &r.Intervals[i]
			c := &iv.Counts
			c.Events, c.Tokens, c.Calls, c.EmptyCalls, c.Reads, c.Writes = 10*c.Events, 10*c.Tokens, 10*c.Calls, 10*c.EmptyCalls, 10*c.Reads, 10*c.Writes
			c.WaitSyscalls *= 10
			iv.EventsPerSec, iv.TokensPerSec = 10*iv.EventsPerSec, 10*iv.TokensPerSec
			tot = tot.Add(*c)
		}
		r.Totals = tot
		r.Tokens = pipebench.Tokens{Sent: tot.Tokens + 7, Received: tot.Tokens, Drained: 7}
		r.WriterWrites = tot.Tokens + 7
		r.PerCall = stats.NewHist(1000)
		for range tot.Calls - tot.EmptyCalls {
			r.PerCall.Record(5)
		}
		for range tot.EmptyCalls {
			r.PerCall.Record(0)
		}
		return r
	}
	d.AddRun(reporttest.Fixture(), nil)
	d.AddRun(fast(), errors.New("stalled: no event for 2s"))
	interrupted := fast()
	interrupted.Interrupted = true
	d.AddRun(interrupted, nil)
	checkFormats(t, d)

	a := d.Summary
	if a.Runs != 4 || a.Summarized != 2 || a.LeftOut != 2 || a.EventsPerSec.Median != 110000 {
		t.Errorf("across runs %+v, want 4 runs, 2 summarized (median 110000), 2 left out", a)
	}
	if d.Runs[2].LeftOut != "failed" || d.Runs[3].LeftOut != "interrupted" {
		t.Errorf("left out %q, %q; want failed, interrupted", d.Runs[2].LeftOut, d.Runs[3].LeftOut)
	}
	text := string(renderAll(t, "text", d))
	if want := "=== 4 runs, 2 left out (run 3: failed, run 4: interrupted): median evts/sec of 2 run medians 110000 "; !strings.Contains(text, want) {
		t.Errorf("text lacks %q:\n%s", want, text)
	}
	bench := string(renderAll(t, "bench", d))
	if strings.Count(bench, "\nBenchmark") != 2 || !strings.Contains(bench, "# run 3: no result line: failed\n") ||
		!strings.Contains(bench, "# run 4: no result line: interrupted\n") {
		t.Errorf("bench output, want 2 result lines and 2 comments:\n%s", bench)
	}

	// Until interrupted (-d 0), the interrupt is a run's normal end.
	d0 := reporttest.FixtureDoc()
	d0.Config.Duration = 0
	d0.AddRun(interrupted, nil)
	if d0.Runs[0].LeftOut != "" || d0.Summary.Summarized != 1 {
		t.Errorf("-d 0: an interrupted run is left out: %q", d0.Runs[0].LeftOut)
	}
}

// TestWarmupRuleEveryFormat: a run that ended within its warm-up has no
// figures after it in any format, and each says so.
func TestWarmupRuleEveryFormat(t *testing.T) {
	d := reporttest.FixtureDoc()
	d.Config.Warmup = 4
	d.AddRun(reporttest.Fixture(), nil)
	checkFormats(t, d)
	for f, want := range map[string]string{
		"text":  "evts/sec       none after warm-up: the run ended after 4 intervals (-warmup 4)\n",
		"json":  `"left_out": "no interval after warm-up"`,
		"csv":   "\n1,4,1,epoll,",
		"bench": "# run 1: no result line: no interval after warm-up\n",
	} {
		if out := string(renderAll(t, f, d)); !strings.Contains(out, want) {
			t.Errorf("%s output lacks %q:\n%s", f, want, out)
		}
	}
}

// TestCheckCatches: the checker itself notices each broken invariant.
func TestCheckCatches(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spoil func(*pipebench.Result)
		want  string
	}{
		{"calls recorded twice", func(r *pipebench.Result) {
			for range r.Totals.Calls - r.Totals.EmptyCalls {
				r.PerCall.Record(5)
			}
		}, "ready/call histogram count (summary) = 167992, want 84000"},
		{"empty calls recorded twice", func(r *pipebench.Result) {
			for range r.Totals.EmptyCalls {
				r.PerCall.Record(0)
			}
		}, "ready/call empty calls (summary) = 16, want 8"},
		{"an interval lost", func(r *pipebench.Result) { r.Intervals = r.Intervals[:3] }, "intervals and tail add up to"},
		{"a token lost", func(r *pipebench.Result) { r.Tokens.Sent++ }, "tokens lost 0, but sent 462008 - received 462000 - drained 7 = 1"},
		{"a rate off", func(r *pipebench.Result) { r.Intervals[2].EventsPerSec++ }, "interval 3: evts/sec 110001, its counts give 110000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := reporttest.Fixture()
			tc.spoil(res)
			err := reporttest.Check(res, summary.Summarize(res, 1), 1)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Check: %v\nwant an error containing %q", err, tc.want)
			}
		})
	}
	// Summaries made by a wrong rule, each caught by a fact of the result.
	for _, tc := range []struct {
		name  string
		spoil func(*pipebench.Result, *summary.Summary)
		want  string
	}{
		{"evts/sec over the warm-up instead of the last interval", func(r *pipebench.Result, s *summary.Summary) {
			s.EventsPerSec = stats.Describe([]float64{90000, 100000, 110000}, summary.NoisyCV)
		}, "evts/sec min (the slowest interval after warm-up) = 90000, recomputed 100000"},
		{"evts/sec median off the middle", func(r *pipebench.Result, s *summary.Summary) { s.EventsPerSec.Median = 101000 }, "evts/sec median 101000 has 1 of the 3"},
		{"tokens/sec of the events", func(r *pipebench.Result, s *summary.Summary) { s.TokensPerSec = 100000 }, "tokens/sec 100000 outside the intervals' after warm-up"},
		{"calls per event inverted", func(r *pipebench.Result, s *summary.Summary) { s.CallsPerEvent = 1 / s.CallsPerEvent }, "calls per event"},
		{"syscalls per token without the writer's", func(r *pipebench.Result, s *summary.Summary) {
			s.SyscallsPerToken = float64(r.Totals.WaitSyscalls) / float64(r.Totals.Tokens)
		}, "outside"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := reporttest.Fixture()
			s := summary.Summarize(res, 1)
			if err := reporttest.Check(res, s, 1); err != nil {
				t.Fatalf("the fixture's own summary: %v", err)
			}
			tc.spoil(res, &s)
			if err := reporttest.Check(res, s, 1); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Check: %v\nwant an error containing %q", err, tc.want)
			}
		})
	}
	res := reporttest.Fixture()
	if err := reporttest.Check(res, summary.Summarize(res, 0), 1); err == nil || !strings.Contains(err.Error(), "summary made with 0 warm-up intervals, want 1") {
		t.Errorf("Check of a summary with another warm-up: %v", err)
	}
	// Runs left out, or counted, against what their results show.
	for _, tc := range []struct {
		name, leftOut string
		err           error
		want          string
	}{
		{"a run with events left out for none", "no events", nil, `left out "no events", but the run shows no such thing`},
		{"a run left out as interrupted", "interrupted", nil, `left out "interrupted", but the run shows no such thing`},
		{"a failed run counted", "", errors.New("stalled"), `counted, yet error "stalled"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := reporttest.FixtureDoc()
			d.AddRun(reporttest.Fixture(), tc.err)
			d.Runs[0].LeftOut = tc.leftOut
			if err := reporttest.CheckDocument(d); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("CheckDocument: %v\nwant an error containing %q", err, tc.want)
			}
		})
	}
	// The text of a run whose histogram counted each full call twice.
	d := reporttest.FixtureDoc()
	d.AddRun(reporttest.Fixture(), nil)
	text := strings.Replace(string(renderAll(t, "text", d)), "(84000 readiness calls, 8 empty)", "(167992 readiness calls, 8 empty)", 1)
	if _, err := reporttest.CheckText(text, 1); err == nil || !strings.Contains(err.Error(), "167992 readiness calls, 8 empty, at 5.00048 samples per call make 840001 events, more than the 462000 tokens received") {
		t.Errorf("CheckText of a doubled count: %v", err)
	}
	// A summary that kept the warm-up of a short run, as the text format did.
	s := summary.Summarize(res, 0)
	s.Warmup = 5
	if err := reporttest.Check(res, s, 5); err == nil || !strings.Contains(err.Error(), "evts/sec over 4 intervals, want 0") {
		t.Errorf("Check of a summary that kept the warm-up: %v", err)
	}
}

// TestRingRunsInvariants: a driver whose io_uring does the reads and writes
// (uring-rw) holds every invariant too, its system calls per token and
// completions per enter among them, in every format.
func TestRingRunsInvariants(t *testing.T) {
	for _, writer := range []pipebench.WriterMode{pipebench.WriterSelf, pipebench.WriterThread} {
		t.Run(writer.String(), func(t *testing.T) {
			cfg := pipebench.Config{
				Pipes: 30, InFlight: 3, Backend: &uring.RWFactory, Writer: writer, Seed: 5,
				Duration: 400 * time.Millisecond, Interval: 100 * time.Millisecond,
			}
			res, err := pipebench.Run(cfg)
			pipebenchtest.SkipIfRefused(t, err)
			if err != nil {
				t.Fatal(err)
			}
			s := summary.Summarize(res, 1)
			if err := reporttest.Check(res, s, 1); err != nil {
				t.Error(err)
			}
			if s.CompletionsPerEnter <= 0 || s.SyscallsPerToken <= 0 {
				t.Errorf("completions per enter %v, system calls per token %v: want both above 0", s.CompletionsPerEnter, s.SyscallsPerToken)
			}
			d := &report.Document{Head: record.Head{Tool: "pipebench"}, Config: report.NewConfig(&cfg, 1, 1)}
			d.AddRun(res, nil)
			checkFormats(t, d)
		})
	}
}

// TestRealRunThreadsInvariants: a real run with several readers and
// writers holds every invariant, the per-thread ones included, in every
// format; and the checker notices per-thread counts that do not add up.
func TestRealRunThreadsInvariants(t *testing.T) {
	cfg := pipebench.Config{
		Pipes: 12, InFlight: 6, Backend: &epoll.LevelFactory, Writer: pipebench.WriterThread, Seed: 5,
		Readers: 2, Writers: 3, Source: pipebench.SourceEventfd,
		Duration: 400 * time.Millisecond, Interval: 100 * time.Millisecond,
	}
	res, err := pipebench.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := reporttest.Check(res, summary.Summarize(res, 1), 1); err != nil {
		t.Error(err)
	}
	d := &report.Document{Head: record.Head{Tool: "pipebench"}, Config: report.NewConfig(&cfg, 1, 1)}
	d.AddRun(res, nil)
	checkFormats(t, d)
	if name := report.Name(res.Setup); !strings.HasSuffix(name, "/readers=2/writers=3") {
		t.Errorf("bench name %s: want the readers and writers in it, so that benchstat keeps the configurations apart", name)
	}
	for _, tc := range []struct {
		name  string
		spoil func(*pipebench.Result)
		want  string
	}{
		{"a writer's token moved to another", func(r *pipebench.Result) { r.Writers[1].Received++; r.Writers[2].Received-- }, "writer 1: tokens lost 0, but sent"},
		{"a reader's event in an interval", func(r *pipebench.Result) { r.Intervals[0].Readers[0]++ }, "interval 1: 2 readers' events add up to"},
		{"a reader's totals", func(r *pipebench.Result) { r.Readers[1].Totals.Reads++ }, "readers' counts add up to"},
		{"a writer's sent", func(r *pipebench.Result) { r.Writers[0].Sent++; r.Writers[0].Received++ }, "writers sent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := pipebench.Run(cfg)
			if err != nil {
				t.Fatal(err)
			}
			tc.spoil(res)
			err = reporttest.Check(res, summary.Summarize(res, 1), 1)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Check: %v\nwant an error containing %q", err, tc.want)
			}
		})
	}
}
