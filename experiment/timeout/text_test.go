package timeout_test

import (
	"bytes"
	"encoding/csv"
	"testing"
	"time"

	"github.com/pipebench/pipebench/experiment/fixture"
	"github.com/pipebench/pipebench/experiment/record"
	"github.com/pipebench/pipebench/experiment/timeout"
	"github.com/pipebench/pipebench/internal/golden"
)

// handMade is a hand-made point whose figures grow with k.
func handMade(m timeout.Mechanism, req time.Duration, k time.Duration) timeout.Point {
	return timeout.Point{Mechanism: m, Requested: req, Samples: 10, Min: k * time.Microsecond, P50: 2 * k * time.Microsecond,
		P99: 5 * k * time.Microsecond, Max: 9 * k * time.Microsecond, Mean: 3 * k * time.Microsecond}
}

// TestTextGolden: the timeout table from known points, one repetition; the
// record reads back (its mechanisms by name) and writes the same text.
func TestTextGolden(t *testing.T) {
	res := &timeout.Result{Samples: 10, TimerSlack: 50 * time.Microsecond, Elapsed: 2 * time.Second, Points: []timeout.Point{
		handMade(timeout.EpollWait, 50*time.Microsecond, 100), handMade(timeout.EpollWait, time.Millisecond, 10),
		handMade(timeout.Timerfd, 50*time.Microsecond, 1), handMade(timeout.Timerfd, time.Millisecond, 2),
	}}
	res.Points[1].Interrupted = 2
	d := timeout.NewDoc(record.Head{Environment: fixture.Machine}, res)
	var b bytes.Buffer
	if err := d.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "timeout.text", b.Bytes())
	fixture.CheckReadBack(t, d, &timeout.Doc{})
}

// TestRoundsDoc: two repetitions of known points: the table shows their
// medians and says so; the CSV has a row per repetition and point.
func TestRoundsDoc(t *testing.T) {
	reps := []timeout.Repetition{
		{Round: 1, Points: []timeout.Point{handMade(timeout.EpollWait, time.Millisecond, 10), handMade(timeout.Timerfd, time.Millisecond, 1)}},
		{Round: 2, Points: []timeout.Point{handMade(timeout.EpollWait, time.Millisecond, 30), handMade(timeout.Timerfd, time.Millisecond, 3)}},
	}
	res := &timeout.Result{Samples: 10, TimerSlack: 50 * time.Microsecond, Elapsed: 2 * time.Second, Rounds: 2, Repetitions: reps,
		Points: timeout.MedianPoints(reps)}
	d := timeout.NewDoc(record.Head{Environment: fixture.Machine}, res)
	var b bytes.Buffer
	if err := d.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "timeout-rounds.text", b.Bytes())
	var c bytes.Buffer
	if err := d.WriteCSV(&c); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&c).ReadAll()
	if err != nil || len(rows) != 5 || rows[0][10] != "round" || rows[3][0] != "epoll_wait" || rows[3][5] != "60000" || rows[3][10] != "2" {
		t.Errorf("CSV: want a header ending in round, four rows, the third epoll_wait in round 2 with p50 60µs: %q (%v)", rows, err)
	}
}

// TestMechanismNames: every mechanism reads back from its name; an unknown
// name is an error naming those there are.
func TestMechanismNames(t *testing.T) {
	for _, m := range timeout.Mechanisms() {
		b, _ := m.MarshalText()
		var back timeout.Mechanism
		if err := back.UnmarshalText(b); err != nil || back != m {
			t.Errorf("%v reads back as %v (%v)", m, back, err)
		}
	}
	var m timeout.Mechanism
	if err := m.UnmarshalText([]byte("nanosleep")); err == nil {
		t.Error("an unknown mechanism reads back")
	}
}
