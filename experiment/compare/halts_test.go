package compare_test

import (
	"strings"
	"testing"

	"github.com/pipebench/pipebench/experiment/compare"
	"github.com/pipebench/pipebench/experiment/fixture"
	"github.com/pipebench/pipebench/experiment/record"
	"github.com/pipebench/pipebench/experiment/report"
	"github.com/pipebench/pipebench/pipebench"
	cmpstat "github.com/pipebench/pipebench/stats/compare"
)

// haltsRecord is a JSON record of fixture runs, one with each of these
// halts (nil: not counted, as in a record of an older pipebench).
func haltsRecord(t *testing.T, halts []*uint64) *compare.Loaded {
	t.Helper()
	cfg := fixture.Config()
	d := &report.Doc{Head: fixture.Head(), Config: report.NewConfig(&cfg, len(halts))}
	for _, h := range halts {
		res := fixture.Result()
		res.Halts = pipebench.Halts{CPUs: []int{0, 1}, Entries: h}
		d.AddRun(res, nil)
	}
	return readBack(t, "halts.json", d)
}

// TestCompareHalts: compare shows each record's halts per event, a
// placement rather than a cost: neither way is better. A record without
// them has no such row.
func TestCompareHalts(t *testing.T) {
	n := func(x uint64) *uint64 { return &x }
	// The fixture's 420000 events: 0.1, 0.2, 0.3 and 0.7, 0.8, 0.9 halts/evt.
	a := haltsRecord(t, []*uint64{n(42000), n(84000), n(126000)})
	b := haltsRecord(t, []*uint64{n(294000), n(336000), n(378000)})
	old := haltsRecord(t, []*uint64{nil, nil, nil})
	c, err := compare.New(record.Head{}, [][]*compare.Loaded{{a}, {b}}, compare.Options{Floor: cmpstat.DefaultFloor})
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, r := range c.Configs[0].Rows {
		if r.Metric != "idle entries/evt" {
			continue
		}
		found = true
		if r.Direction != "no better way" {
			t.Errorf("halts/evt: direction %q, want no better way", r.Direction)
		}
		if len(r.Summaries) != 2 || r.Summaries[0].Median != 0.2 || r.Summaries[1].Median != 0.8 {
			t.Errorf("halts/evt medians %+v, want 0.2 and 0.8", r.Summaries)
		}
		if len(r.Changes) != 1 || r.Changes[0].Verdict == cmpstat.Better || r.Changes[0].Verdict == cmpstat.Worse {
			t.Errorf("halts/evt changes %+v, want one, neither better nor worse", r.Changes)
		}
	}
	if !found {
		t.Error("compare shows no halts/evt row")
	}
	c, err = compare.New(record.Head{}, [][]*compare.Loaded{{old}, {old}}, compare.Options{Floor: cmpstat.DefaultFloor})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range c.Configs[0].Rows {
		if strings.HasPrefix(r.Metric, "halts") {
			t.Errorf("records without halts: a %s row %+v", r.Metric, r.Summaries)
		}
	}
}
