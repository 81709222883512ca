package report_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/pipebench/pipebench/experiment/fixture"
	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/stats"
)

// TestFixtureNumbers: each format carries the hand-made result's figures,
// whose values are known: 4 intervals of 90000..120000 events, 84000
// readiness calls of which 8 empty, every full call with 5 pipes ready.
func TestFixtureNumbers(t *testing.T) {
	for f, want := range map[string][]string{
		"text": {
			"evts/sec       median 110000  sd 10000 (9.1%)  min 100000  max 120000\n",
			"samples/call   5  ready/call p50 5  p90 5  p99 5  max 5\n",
			"tokens         sent 462007  received 462000  drained 7  lost 0\n",
			// (42000 waits + 420000 reads + 84000 writes + the writer's
			// 462007 writes, 42000 reads, 21000 waits) / 462000 tokens;
			// 910 ms of CPU / 462000 tokens; 294000 idle entries / 420000
			// events.
			"syscalls/token 2.318  cpu ns/token 1970  idle entries/evt 0.7\n",
		},
		"text -v": {
			"               mean 110000  95% CI of the mean 85159..134841 (within this run)\n",
			"               over 3 intervals, 1 warm-up left out\n",
			"               84000 readiness calls, 8 empty; ready/call mean 5\n",
		},
		"json": {`"calls": 84000,`, `"empty": 8,`, `"runs_summarized": 1,`, `"runs_left_out": 0,`},
		"csv":  {"\n1,1,1,epoll,", "\n1,2,0,epoll,1000,10,thread,1,100000,110000,20000,2,100000,20000,0,0,10000,100000,110000,"},
		// 100000+110000+120000 events after warm-up; 1e9/110000 ns/event.
		"bench": {"\nBenchmarkPipes/backend=epoll/pipes=1000/inflight=10/writer=thread\t330000\t9090.9 ns/event\t110000 evts/sec\t121000 tokens/sec\t5 samples/call\t2.318 syscalls/token\t1970 cpu-ns/token\n"},
	} {
		var out string
		if f == "text -v" {
			out = string(renderVerbose(t, fixtureDoc(), fixture.Result()))
		} else {
			out = string(render(t, f, fixtureDoc(), fixture.Result()))
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s output lacks %q:\n%s", f, w, out)
			}
		}
	}
}

// fast is the fixture with ten times the counts.
func fast() *pipebench.Result {
	r := fixture.Result()
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

// TestAcrossLeavesOut: the summary across runs leaves out a failed run and
// an interrupted one, however fast their partial intervals were, says so
// in every format, and the bench format gives them no line.
func TestAcrossLeavesOut(t *testing.T) {
	d := fixtureDoc()
	d.Config.Count = 4
	d.AddRun(fixture.Result(), nil)
	d.AddRun(fixture.Result(), nil)
	d.AddRun(fast(), errors.New("stalled: no event for 2s"))
	interrupted := fast()
	interrupted.Interrupted = true
	d.AddRun(interrupted, nil)

	a := d.Summary
	if a.Runs != 4 || a.Summarized != 2 || a.LeftOut != 2 || a.EventsPerSec.Median != 110000 {
		t.Errorf("across runs %+v, want 4 runs, 2 summarized (median 110000), 2 left out", a)
	}
	if d.Runs[2].LeftOut != "failed" || d.Runs[3].LeftOut != "interrupted" {
		t.Errorf("left out %q, %q; want failed, interrupted", d.Runs[2].LeftOut, d.Runs[3].LeftOut)
	}
	text := string(render(t, "text", d))
	if want := "=== 4 runs, 2 left out (run 3: failed, run 4: interrupted)\nevts/sec       median of 2 run medians 110000 "; !strings.Contains(text, want) {
		t.Errorf("text lacks %q:\n%s", want, text)
	}
	bench := string(render(t, "bench", d))
	if strings.Count(bench, "\nBenchmark") != 2 || !strings.Contains(bench, "# run 3: no result line: failed\n") ||
		!strings.Contains(bench, "# run 4: no result line: interrupted\n") {
		t.Errorf("bench output, want 2 result lines and 2 comments:\n%s", bench)
	}
	if json := string(render(t, "json", d)); !strings.Contains(json, `"left_out": "failed"`) || !strings.Contains(json, `"runs_left_out": 2,`) {
		t.Errorf("json output does not say which runs are left out:\n%s", json)
	}

	// Until interrupted (-d 0), the interrupt is a run's normal end.
	d0 := fixtureDoc()
	d0.Config.Duration = 0
	d0.AddRun(interrupted, nil)
	if d0.Runs[0].LeftOut != "" || d0.Summary.Summarized != 1 {
		t.Errorf("-d 0: an interrupted run is left out: %q", d0.Runs[0].LeftOut)
	}
}

// TestWarmupRuleEveryFormat: a run that ended within its warm-up has no
// figures after it in any format, and each says so.
func TestWarmupRuleEveryFormat(t *testing.T) {
	for f, want := range map[string]string{
		"text":  "evts/sec       none after warm-up: the run ended after 4 intervals (-warmup 4)\n",
		"json":  `"left_out": "no interval after warm-up"`,
		"csv":   "\n1,4,1,epoll,",
		"bench": "# run 1: no result line: no interval after warm-up\n",
	} {
		d := fixtureDoc()
		d.Config.Warmup = 4
		if out := string(render(t, f, d, fixture.Result())); !strings.Contains(out, want) {
			t.Errorf("%s output lacks %q:\n%s", f, want, out)
		}
	}
}
