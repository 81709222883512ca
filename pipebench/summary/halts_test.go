package summary_test

import (
	"math"
	"strings"
	"testing"

	"github.com/pipebench/pipebench/experiment/fixture"
	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/pipebench/summary"
)

// warningsOf picks a summary's warnings of kind k.
func warningsOf(s summary.Summary, k summary.Kind) []summary.Warning {
	var got []summary.Warning
	for _, w := range s.Warnings {
		if w.Kind == k {
			got = append(got, w)
		}
	}
	return got
}

// TestHaltsPerEvent: the figure is the CPUs' idle-state entries per event
// of the whole window, and absent, with the reason, where they were not
// counted: never 0 for none.
func TestHaltsPerEvent(t *testing.T) {
	entries := func(n uint64) *uint64 { return &n }
	cases := []struct {
		name    string
		halts   pipebench.Halts
		events  uint64 // 0: the fixture's 420000
		want    float64
		missing string // "" when the figure is present
	}{
		{"counted", pipebench.Halts{CPUs: []int{0, 1}, Entries: entries(84000)}, 0, 0.2, ""},
		{"none", pipebench.Halts{CPUs: []int{0, 1}, Entries: entries(0)}, 0, 0, ""},
		{"no cpuidle", pipebench.Halts{CPUs: []int{0}, Missing: "no cpuidle states for CPU 0 (/sys/devices/system/cpu/cpu0/cpuidle)"}, 0, 0, "no cpuidle states for CPU 0"},
		{"not counted", pipebench.Halts{}, 0, 0, "not counted"},
		{"no event", pipebench.Halts{CPUs: []int{0, 1}, Entries: entries(5)}, math.MaxUint64, 0, "no event"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := fixture.Result()
			res.Halts = c.halts
			if c.events == math.MaxUint64 {
				res.Totals.Events = 0
			}
			s := summary.Summarize(res, 1)
			switch {
			case c.missing != "":
				if s.HaltsPerEvent != nil || !strings.Contains(s.HaltsMissing, c.missing) {
					t.Errorf("halts/evt %v, missing %q: want none, saying %q", s.HaltsPerEvent, s.HaltsMissing, c.missing)
				}
			case s.HaltsPerEvent == nil:
				t.Errorf("no halts/evt (%q), want %v", s.HaltsMissing, c.want)
			case math.Abs(*s.HaltsPerEvent-c.want) > 1e-12 || s.HaltsMissing != "":
				t.Errorf("halts/evt %v, missing %q: want %v", *s.HaltsPerEvent, s.HaltsMissing, c.want)
			}
		})
	}
}

// TestHaltWarning: only a run whose reader and writer the scheduler placed
// (a writer thread or process, no -cpu, more than one CPU allowed) is
// warned, and only above summary.HaltsAbove halts per event.
func TestHaltWarning(t *testing.T) {
	cases := []struct {
		name    string
		writer  pipebench.WriterMode
		pinned  []int // -cpu
		allowed []int // the affinity mask
		halts   uint64
		warned  bool
	}{
		{"unpinned writer thread above 0.5", pipebench.WriterThread, nil, []int{0, 1}, 294000, true},
		{"unpinned writer process above 0.5", pipebench.WriterProcess, nil, []int{0, 1, 2, 3}, 630000, true},
		{"unpinned writer thread at 0.5", pipebench.WriterThread, nil, []int{0, 1}, 210000, false},
		{"unpinned writer thread below 0.5", pipebench.WriterThread, nil, []int{0, 1}, 100000, false},
		{"self mode", pipebench.WriterSelf, nil, []int{0, 1}, 630000, false},
		{"pinned to one CPU (-cpu 0)", pipebench.WriterThread, []int{0}, []int{0, 1}, 630000, false},
		{"pinned to two (-cpu 0,1)", pipebench.WriterProcess, []int{0, 1}, []int{0, 1}, 630000, false},
		{"confined to one CPU (taskset)", pipebench.WriterThread, nil, []int{1}, 630000, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := fixture.Result()
			res.Setup.Writer, res.Setup.CPUs = c.writer, c.pinned
			n := c.halts
			res.Halts = pipebench.Halts{CPUs: c.allowed, Entries: &n}
			s := summary.Summarize(res, 1)
			w := warningsOf(s, summary.ManyHalts)
			switch {
			case !c.warned && len(w) > 0:
				t.Errorf("halts/evt %v: warnings %+v, want none", *s.HaltsPerEvent, w)
			case c.warned && len(w) != 1:
				t.Errorf("halts/evt %v: warnings %+v, want one", *s.HaltsPerEvent, w)
			case c.warned && (w[0].Value != *s.HaltsPerEvent || w[0].Limit != summary.HaltsAbove):
				t.Errorf("warning %+v: want halts/evt %v above %v", w[0], *s.HaltsPerEvent, summary.HaltsAbove)
			}
		})
	}
	res := fixture.Result()
	res.Halts = pipebench.Halts{CPUs: []int{0, 1}, Missing: "no cpuidle states for CPU 0"}
	if w := warningsOf(summary.Summarize(res, 1), summary.ManyHalts); len(w) != 0 {
		t.Errorf("halts not counted: warnings %+v, want none", w)
	}
}

// TestSysmonWarning: every run whose reader and writer the scheduler placed
// on CPUs that halt when idle says that the Go runtime's sysmon shapes
// where they go, whatever its halts per event; a run pinned, confined,
// in self mode, or where halts could not be counted or none came, does not.
func TestSysmonWarning(t *testing.T) {
	cases := []struct {
		name    string
		writer  pipebench.WriterMode
		pinned  []int
		allowed []int
		halts   *uint64
		warned  bool
	}{
		{"unpinned writer thread", pipebench.WriterThread, nil, []int{0, 1}, ptr(1000), true},
		{"unpinned writer process", pipebench.WriterProcess, nil, []int{0, 1, 2, 3}, ptr(630000), true},
		{"self mode", pipebench.WriterSelf, nil, []int{0, 1}, ptr(1000), false},
		{"pinned (-cpu 0,1)", pipebench.WriterThread, []int{0, 1}, []int{0, 1}, ptr(1000), false},
		{"confined to one CPU (taskset)", pipebench.WriterProcess, nil, []int{1}, ptr(1000), false},
		{"no halt counted", pipebench.WriterThread, nil, []int{0, 1}, ptr(0), false},
		{"halts not counted", pipebench.WriterThread, nil, []int{0, 1}, nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := fixture.Result()
			res.Setup.Writer, res.Setup.CPUs = c.writer, c.pinned
			res.Halts = pipebench.Halts{CPUs: c.allowed, Entries: c.halts}
			got := warningsOf(summary.Summarize(res, 1), summary.Sysmon)
			if c.warned && len(got) != 1 || !c.warned && len(got) != 0 {
				t.Errorf("sysmon warnings %+v, want one: %v", got, c.warned)
			}
		})
	}
}

func ptr(n uint64) *uint64 { return &n }
