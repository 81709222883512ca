package sweep

import (
	"bytes"
	"testing"

	"github.com/pipebench/pipebench/experiment/fixture"
	"github.com/pipebench/pipebench/internal/golden"
)

// TestWideGolden: a sweep of more backends than 80 columns hold lays its
// tables out in blocks of columns, each beginning with the pipes, and
// ends with the machine and the command.
func TestWideGolden(t *testing.T) {
	backends := []string{"select", "poll", "epoll", "epoll-et", "epoll-oneshot", "uring", "uring-oneshot", "gonet"}
	r := &Result{
		Grid:     Grid{Backends: backends, Pipes: []int{10, 10000}, InFlight: []int{1}},
		Settings: Settings{Duration: "3s", Interval: "500ms", Warmup: 1, Writer: "self", Route: "random", Seed: 1},
	}
	for i, b := range backends {
		for _, n := range r.Grid.Pipes {
			r.Points = append(r.Points, Point{Key: Key{Backend: b, Pipes: n, InFlight: 1}, Writer: "self",
				EventsPerSec: float64(1000000 - 1000*i - n), SamplesPerCall: 1, SamplesApply: true, SyscallsPerToken: 3, CPUPerToken: 1234.5 + float64(n)})
		}
	}
	head := fixture.Head()
	head.Command, head.Args = "sweep", []string{"-b", "select,poll,epoll,epoll-et,epoll-oneshot,uring,uring-oneshot,gonet", "-n", "10,10000"}
	var b bytes.Buffer
	if err := NewDoc(head, r, DefaultRatios(backends), false).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "sweep-wide.text", b.Bytes())
}
