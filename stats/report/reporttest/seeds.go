package reporttest

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/pipebench/pipebench/experiment/seeds"
	"github.com/pipebench/pipebench/stats/report"
)

// CheckSeedRows checks the invariants of pipebench seeds' rows: each has a
// claim, a unit, the seed's source, a command, a verdict of the three with
// why; a figure here has its source; the ratio is here ÷ the seed's,
// present exactly when both figures are and the verdict compares them.
func CheckSeedRows(rows []seeds.Row) error {
	c := &checker{}
	for i, r := range rows {
		c.what = fmt.Sprintf("row %d (%s): ", i+1, r.Claim)
		switch {
		case r.Seed == "" || r.Claim == "" || r.Unit == "" || r.TheirsFrom == "" || r.Command == "":
			c.errorf("incomplete: %+v", r)
		case r.Verdict != seeds.Holds && r.Verdict != seeds.DoesNotHold && r.Verdict != seeds.NotComparable:
			c.errorf("verdict %q", r.Verdict)
		case r.Why == "":
			c.errorf("a verdict without why")
		case r.Here != nil && r.HereFrom == "":
			c.errorf("a figure here without its source")
		}
		compared := r.Here != nil && r.Theirs != nil && r.Verdict != seeds.NotComparable
		if (r.Ratio != nil) != compared {
			c.errorf("ratio %v, here %v, theirs %v, %s", r.Ratio, r.Here, r.Theirs, r.Verdict)
		} else if compared {
			c.eqF("ratio", *r.Ratio, *r.Here / *r.Theirs)
		}
	}
	return c.err()
}

// CheckSeedsFormats checks that the text, CSV and JSON of d carry its
// rows: the text's table has a line per row with its seed, verdict and
// claim; the CSV a record per row with the same figures to the last digit;
// the JSON the rows themselves.
func CheckSeedsFormats(d *report.SeedsDoc, text, csvOut, jsonOut []byte) error {
	c := &checker{}
	for i, r := range d.Rows {
		line := fmt.Sprintf("%3d %-4s", i+1, r.Seed)
		found := false
		for _, l := range strings.Split(string(text), "\n") {
			if strings.HasPrefix(l, line) && strings.Contains(l, string(r.Verdict)) && strings.HasSuffix(l, r.Claim) {
				found = true
				break
			}
		}
		if !found {
			c.errorf("text: no table line for row %d (%s)", i+1, r.Claim)
		}
	}
	recs, err := csv.NewReader(bytes.NewReader(csvOut)).ReadAll()
	if err != nil {
		return fmt.Errorf("csv: %w", err)
	}
	if len(recs) != len(d.Rows)+1 {
		c.errorf("csv: %d records for %d rows and a header", len(recs), len(d.Rows))
	} else {
		col := map[string]int{}
		for i, h := range recs[0] {
			col[h] = i
		}
		for i, r := range d.Rows {
			rec := recs[i+1]
			for name, v := range map[string]*float64{"theirs": r.Theirs, "here": r.Here, "ratio": r.Ratio} {
				got := rec[col[name]]
				switch {
				case v == nil && got != "":
					c.errorf("csv row %d: %s %q, want empty", i+1, name, got)
				case v != nil:
					f, err := strconv.ParseFloat(got, 64)
					if err != nil || f != *v {
						c.errorf("csv row %d: %s %q, want %v", i+1, name, got, *v)
					}
				}
			}
			if rec[col["verdict"]] != string(r.Verdict) || rec[col["claim"]] != r.Claim {
				c.errorf("csv row %d: %q %q", i+1, rec[col["verdict"]], rec[col["claim"]])
			}
		}
	}
	var back report.SeedsDoc
	if err := json.Unmarshal(jsonOut, &back); err != nil {
		return fmt.Errorf("json: %w", err)
	}
	if back.Result == nil || len(back.Rows) != len(d.Rows) {
		c.errorf("json: rows do not round-trip")
	} else {
		for i := range d.Rows {
			a, b := d.Rows[i], back.Rows[i]
			if a.Claim != b.Claim || a.Verdict != b.Verdict || a.Why != b.Why || !sameNum(a.Here, b.Here) || !sameNum(a.Theirs, b.Theirs) || !sameNum(a.Ratio, b.Ratio) {
				c.errorf("json row %d differs: %+v, want %+v", i+1, b, a)
			}
		}
	}
	return c.err()
}

func sameNum(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
