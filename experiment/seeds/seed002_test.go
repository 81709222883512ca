package seeds

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// idle is a share of idle CPU.
func idle(x float64) *float64 { return &x }

// runs002 are seed 002's four runs at a fixed load with the patch's
// figures, the middles of its ranges (min-wait: 303500 involuntary cs/sec
// and 37% idle, against 325000 and 30.5% with the sleep), and on epoll a
// sleep that batches 4 times more and saves a third of the CPU.
func runs002() (uSleep, uMin, eNone, eSleep loadRun) {
	return loadRun{step: s002UringSleep, involPerSec: 325000, idle: idle(0.305)},
		loadRun{step: s002UringMin, involPerSec: 303500, idle: idle(0.37)},
		loadRun{step: s002EpollNone, samplesPerCall: 10, cpuPerToken: 3000},
		loadRun{step: s002EpollSleep, samplesPerCall: 40, cpuPerToken: 2000}
}

var sat002 = map[string]float64{"uring": 366917, "epoll": 400000}

// TestJudge002: the seed's own figures hold; the reverse does not; a run
// past saturation, or a step that could not run, is not comparable, and
// says why; every row runs the commands it prints: the saturation run,
// then the plan's share of it as a rate, on uring the sleep against the
// minimum wait, on epoll none against the sleep.
func TestJudge002(t *testing.T) {
	verdicts := func(rows []Row) string {
		var vs []string
		for _, r := range rows {
			vs = append(vs, string(r.Verdict))
		}
		return strings.Join(vs, ", ")
	}
	uSleep, uMin, eNone, eSleep := runs002()
	rows := judge002(Full, sat002, uSleep, uMin, eNone, eSleep)
	if got := verdicts(rows); got != "holds, holds, holds, holds" {
		t.Errorf("the seed's figures: %s", got)
	}
	if r := rows[2]; *r.Here != 325000.0/303500 || *r.Ratio != 1 || !strings.Contains(r.Claim, "io_uring's, not the epoll patch") ||
		!strings.Contains(r.HereFrom, "stands for the epoll patch's, which was not merged") || !strings.Contains(r.TheirsFrom, "here 50% of saturation") {
		t.Errorf("involuntary cs row %+v", r)
	}
	if r := rows[3]; *r.Here != 0.37/0.305 || !strings.Contains(r.HereFrom, "37.0% ÷ 30.5% idle") {
		t.Errorf("idle row %+v", r)
	}
	want := []string{
		"pipebench -b epoll -n 1000 -writer thread -l 0; pipebench -b epoll -n 1000 -writer thread -rate 200k; pipebench -b epoll -n 1000 -writer thread -rate 200k -delay 200us",
		"pipebench -b uring -n 1000 -writer thread -l 0; pipebench -b uring -n 1000 -writer thread -rate 183k -delay 200us; pipebench -b uring -n 1000 -writer thread -rate 183k -minwait 200us",
	}
	if rows[0].Command != want[0] || rows[3].Command != want[1] {
		t.Errorf("commands\n%s\n%s\nwant\n%s\n%s", rows[0].Command, rows[3].Command, want[0], want[1])
	}

	uSleep, uMin = uMin, uSleep
	eNone, eSleep = eSleep, eNone
	if got := verdicts(judge002(Full, sat002, uSleep, uMin, eNone, eSleep)); got != "does not hold, does not hold, does not hold, does not hold" {
		t.Errorf("the reverse: %s", got)
	}

	uSleep, uMin, eNone, eSleep = runs002()
	uMin.behind = "readers"
	rows = judge002(Full, sat002, uSleep, uMin, eNone, eSleep)
	if got := verdicts(rows); got != "holds, holds, not comparable, not comparable" ||
		!strings.Contains(rows[2].Why, s002UringMin+" was past saturation (the readers fell behind the schedule)") || rows[2].Ratio != nil {
		t.Errorf("a run past saturation: %s: %s", got, rows[2].Why)
	}
	uMin.behind, uMin.err = "", errors.New("-minwait 200µs with -b uring: io_uring's minimum wait needs Linux 6.12")
	rows = judge002(Full, map[string]float64{"epoll": 400000}, uSleep, uMin, eNone, eSleep)
	if got := verdicts(rows); got != "holds, holds, not comparable, not comparable" || !strings.Contains(rows[3].Why, "needs Linux 6.12") || rows[3].Here != nil {
		t.Errorf("a kernel without the minimum wait: %s: %s", got, rows[3].Why)
	}
	if !strings.Contains(rows[3].Command, "-rate <50% of the first command's tokens/s>") {
		t.Errorf("without a saturation the command says the rate in words: %s", rows[3].Command)
	}
	uMin.err, uMin.involPerSec = nil, 0
	if r := judge002(Full, sat002, uSleep, uMin, eNone, eSleep)[2]; r.Verdict != NotComparable || !strings.HasSuffix(r.Why, "no ratio") {
		t.Errorf("no involuntary switch with the minimum wait: %s: %s", r.Verdict, r.Why)
	}
	uMin.involPerSec, uSleep.idle = 303500, idle(0)
	if r := judge002(Full, sat002, uSleep, uMin, eNone, eSleep)[3]; r.Verdict != NotComparable || !strings.Contains(r.Why, "0.0% and 37.0% of the CPUs idle with the sleep and the minimum wait: no ratio") {
		t.Errorf("no idle CPU with the sleep: %s: %s", r.Verdict, r.Why)
	}
}

// TestPlan002: both plans run seed 002 at half of saturation with a 200 µs
// sleep and minimum wait, at 1000 pipes, in six steps.
func TestPlan002(t *testing.T) {
	for _, p := range []Plan{Quick, Full} {
		if p.LoadShare != 0.5 || p.Delay != 200*time.Microsecond || p.MinWait != 200*time.Microsecond || p.DelayPipes != 1000 {
			t.Errorf("%s: share %v, delay %v, min wait %v, pipes %d", p.Name, p.LoadShare, p.Delay, p.MinWait, p.DelayPipes)
		}
	}
	if steps002 != 6 {
		t.Errorf("seed 002 takes %d steps, want 6: two saturation runs and four at the fixed load", steps002)
	}
}
