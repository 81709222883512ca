package seeds

import (
	"strings"
	"testing"
)

// TestMergeRounds: rows judged in three rounds become one row per claim,
// the figure here the median of the rounds' figures and the verdict the
// median's, the ratio of the median; a round without a figure leaves the
// median to the others; a claim never measured keeps its reason.
func TestMergeRounds(t *testing.T) {
	a := claim{seed: "001", text: "a", unit: "ratio", theirs: 1.5, theirsFrom: "seed", command: "pipebench a"}
	b := claim{seed: "002", text: "b", unit: "ratio", theirsFrom: "no figure", command: "pipebench b"}
	c := claim{seed: "003", text: "c", unit: "ratio", theirsFrom: "no figure", command: "pipebench c"}
	round := func(n int, ha float64, hb float64) []Row {
		rb := b.missing("b's step failed")
		if hb > 0 {
			rb = b.judged(hb, "b from round "+string(rune('0'+n)), expect(Above))
		}
		return []Row{a.judged(ha, "a from round "+string(rune('0'+n)), sameSide(a.theirs)), rb, c.missing("perf cannot record here")}
	}
	rows := mergeRounds([][]Row{round(1, 0.9, 2), round(2, 1.2, 0), round(3, 1.3, 4)})
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3", len(rows))
	}
	ra := rows[0]
	if ra.Here == nil || *ra.Here != 1.2 || ra.Verdict != Holds || ra.Ratio == nil || *ra.Ratio != *ra.Here/a.theirs || ra.Runs != 3 {
		t.Errorf("row a: here %v, %s, ratio %v, %d runs; want 1.2, holds (the median's side), 0.8, 3", deref(ra.Here), ra.Verdict, deref(ra.Ratio), ra.Runs)
	}
	if want := "the median of 3 runs (0.9, 1.2, 1.3); the run nearest it: a from round 2"; ra.HereFrom != want {
		t.Errorf("row a from %q, want %q", ra.HereFrom, want)
	}
	if len(ra.Repetitions) != 3 || ra.Repetitions[0].Verdict != DoesNotHold || *ra.Repetitions[0].Here != 0.9 || ra.Repetitions[2].Round != 3 {
		t.Errorf("row a's repetitions %+v: want three, the first 0.9, does not hold", ra.Repetitions)
	}
	rb := rows[1]
	if rb.Here == nil || *rb.Here != 3 || rb.Runs != 2 || rb.Verdict != Holds || rb.Ratio != nil || rb.Repetitions[1].Here != nil {
		t.Errorf("row b: here %v, %d runs, %s, ratio %v; want the median of 2 and 4 (3) from 2 runs, holds, no ratio", rb.Here, rb.Runs, rb.Verdict, rb.Ratio)
	}
	rc := rows[2]
	if rc.Here != nil || rc.Runs != 0 || rc.Verdict != NotComparable || !strings.Contains(rc.Why, "perf cannot record here") || len(rc.Repetitions) != 3 {
		t.Errorf("row c: %+v; want no figure, 0 runs, its reason, three repetitions", rc)
	}
	one := mergeRounds([][]Row{round(1, 0.9, 2)})
	if one[0].Runs != 1 || *one[0].Here != 0.9 || one[0].Repetitions != nil || one[2].Runs != 0 {
		t.Errorf("one round: %+v", one)
	}
}

func deref(x *float64) any {
	if x == nil {
		return nil
	}
	return *x
}
