package sweep

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/pipebench/pipebench/experiment/record"
)

// crossed is a sweep of poll, select and epoll at 1, 3, 10 and 30 pipes,
// in rounds rounds: poll falls as 600k/sqrt(n) and epoll holds 300k, so
// that epoll overtakes poll at 4 pipes; select is poll within 0.3% at 3
// and 10 pipes, with 2% of noise between rounds, so that select and poll
// cross there inside the noise; each round's drift falls on every point.
func crossed(rounds int) *Result {
	r := &Result{
		Grid:     Grid{Backends: []string{"poll", "select", "epoll"}, Pipes: []int{1, 3, 10, 30}, InFlight: []int{1}},
		Settings: Settings{Duration: "3s", Interval: "500ms", Warmup: 1, Writer: "self"},
		Rounds:   rounds,
	}
	near := map[int]float64{1: 0.9, 3: 1.003, 10: 0.997, 30: 0.9}
	for round := range rounds {
		drift, noise := []float64{1, 1.1, 0.9}[round], []float64{1, 1.02, 0.98}[round]
		for _, k := range r.Grid.Keys() {
			poll := 600000 / math.Sqrt(float64(k.Pipes))
			v := map[string]float64{"poll": poll, "select": poll * near[k.Pipes] * noise, "epoll": 300000}[k.Backend] * drift
			p := Point{Key: k, EventsPerSec: v, SamplesPerCall: 1, SamplesApply: true}
			if rounds > 1 {
				p.Round = round + 1
			}
			r.Points = append(r.Points, p)
		}
	}
	r.Crossings = FindCrossings(r)
	return r
}

// TestWriteCrossings: under the table, a line for each crossing: who
// overtakes whom, between which measured pipe counts, where, with the
// interval, or "not resolved" and why; then the pairs that do not cross;
// then what -refine did.
func TestWriteCrossings(t *testing.T) {
	r := crossed(3)
	r.Refine = &Refine{Factor: 1.25, Budget: 4, Added: []Key{{Backend: "poll", Pipes: 2}, {Backend: "epoll", Pipes: 2}}, Spent: true}
	var b bytes.Buffer
	if err := NewDoc(record.Head{}, r, DefaultRatios(r.Grid.Backends), false).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := `
crossings (on log pipes; 95% intervals from 3 paired rounds):
  select overtakes poll between 1 and 3 pipes, at about 2.9: not resolved (at 3
      pipes the ratio's interval holds 1)
  poll overtakes select between 3 and 10 pipes, at about 5.3: not resolved (at 3
      pipes the ratio's interval holds 1)
  epoll overtakes poll between 3 and 10 pipes, at about 4.0 (4.0-4.0)
  epoll overtakes select between 3 and 10 pipes, at about 4.0 (3.5-4.6)
  -refine 1.25 added 2 points (each run 3 times); its budget of 4 ran out before
      every bracket was within 1.25; a crossing not resolved is left as it is
      (more -count tells more than more points)
`
	checkCrossingText(t, b.String(), want)

	// One run a point: no interval, and a pair that does not cross.
	r = crossed(1)
	for i, p := range r.Points {
		if p.Backend == "epoll" {
			r.Points[i].EventsPerSec = 1e6
		}
	}
	r.Crossings = FindCrossings(r)
	b.Reset()
	if err := NewDoc(record.Head{}, r, nil, false).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want = `
crossings (on log pipes; one run a point: no interval, -count 5 gives one):
  select overtakes poll between 1 and 3 pipes, at about 2.9
  poll overtakes select between 3 and 10 pipes, at about 5.5
  no crossing: epoll ahead of poll from 1 to 30 pipes, by 1.67x at 1 pipe and
      9.13x at 30
  no crossing: epoll ahead of select from 1 to 30 pipes, by 1.85x at 1 pipe and
      10.14x at 30
`
	checkCrossingText(t, b.String(), want)

	// Paired rounds: a pair that does not cross is said by the curve
	// ahead (poll, the first backend, here), with each end's interval;
	// at 1 pipe, where poll leads by 1.03, 1.00 and 0.99 in the three
	// rounds, the order is not known (a 97.5% t interval on 2 degrees of
	// freedom: exp(0.0065 ± 6.205 x 0.0119), 0.93 to 1.08).
	r = crossed(3)
	for i, p := range r.Points {
		if p.Backend == "epoll" {
			poll := 600000 / math.Sqrt(float64(p.Pipes)) * []float64{1, 1.1, 0.9}[p.Round-1]
			r.Points[i].EventsPerSec = poll / 2
			if p.Pipes == 1 {
				r.Points[i].EventsPerSec = poll / []float64{1.03, 1, 0.99}[p.Round-1]
			}
		}
	}
	r.Crossings = FindCrossings(r)
	b.Reset()
	if err := NewDoc(record.Head{}, r, nil, false).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want = `
  no crossing: poll ahead of epoll from 1 to 30 pipes, by 1.01x (0.93-1.08) at 1
      pipe and 2.00x (2.00-2.00) at 30: at 1 pipe the ratio's interval holds 1
`
	checkCrossingText(t, b.String(), want)

	// A record from before crossings were found prints none.
	r.Crossings = nil
	b.Reset()
	if err := NewDoc(record.Head{}, r, nil, false).WriteText(&b); err != nil || strings.Contains(b.String(), "crossing") {
		t.Errorf("a record without crossings: %v\n%s", err, b.String())
	}
}

// checkCrossingText checks that text holds want (which begins with the
// blank line before the crossings), in lines
// of at most 80 columns.
func checkCrossingText(t *testing.T, text, want string) {
	t.Helper()
	if !strings.Contains(text, want) {
		t.Errorf("text\n%s\nwant it to hold\n%s", text, want)
	}
	for _, l := range strings.Split(want, "\n") {
		if len([]rune(l)) > 80 {
			t.Errorf("line of %d columns: %q", len([]rune(l)), l)
		}
	}
}

// TestCrossingsJSON: the record keeps every pair compared, with the pipes
// both curves share, and each crossing with its bracket, estimate,
// interval, resolution and the ratios at both ends.
func TestCrossingsJSON(t *testing.T) {
	var b bytes.Buffer
	if err := record.Write(&b, "json", NewDoc(record.Head{}, crossed(3), nil, false)); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Crossings struct {
			Level float64
			Pairs []struct {
				A, B      struct{ Backend string }
				Pipes     []int
				Crossings []map[string]any
			}
		}
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	cs := doc.Crossings
	if cs.Level != 0.95 || len(cs.Pairs) != 3 || cs.Pairs[2].A.Backend != "select" || cs.Pairs[2].B.Backend != "epoll" || len(cs.Pairs[2].Pipes) != 4 {
		t.Fatalf("crossings %+v", cs)
	}
	c := cs.Pairs[1].Crossings[0] // epoll over poll
	for _, k := range []string{"over", "under", "from", "to", "at", "lo", "hi", "interval", "resolved", "before", "after", "b_overtakes_a"} {
		if _, ok := c[k]; !ok {
			t.Errorf("crossing %v lacks %q", c, k)
		}
	}
	if c["from"] != 3.0 || c["to"] != 10.0 || c["resolved"] != true || c["over"].(map[string]any)["backend"] != "epoll" {
		t.Errorf("crossing %v: want epoll over poll, resolved, from 3 to 10", c)
	}
}

// TestProgressBarGrows: the bar takes the points -refine adds into its
// total.
func TestProgressBarGrows(t *testing.T) {
	var b strings.Builder
	p := NewBar(&b, "sweep", true, 4, time.Second)
	k := Key{Backend: "epoll", Pipes: 10, InFlight: 1}
	for done := 1; done <= 4; done++ {
		p.Show(Progress{Kind: Finished, Key: k, Done: done, Total: 4, Elapsed: time.Second})
	}
	p.Show(Progress{Kind: Finished, Key: k, Done: 5, Total: 6, Elapsed: time.Second})
	p.Close()
	if !strings.Contains(b.String(), "(5/6)") {
		t.Errorf("bar output %q lacks (5/6)", b.String())
	}
}
