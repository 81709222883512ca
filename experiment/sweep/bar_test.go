package sweep

import (
	"strings"
	"testing"
	"time"
)

func TestProgressPlainLines(t *testing.T) {
	var b strings.Builder
	p := NewBar(&b, "sweep", false, 2, time.Second)
	pt := Point{Key: Key{Backend: "epoll", Pipes: 10, InFlight: 1}, EventsPerSec: 12345}
	p.Show(Progress{Kind: Started, Key: pt.Key, Total: 2})
	p.Show(Progress{Kind: Tick, Key: pt.Key, Total: 2, Elapsed: time.Second, InPoint: time.Second})
	p.Show(Progress{Kind: Finished, Key: pt.Key, Done: 1, Total: 2, Elapsed: 2 * time.Second, Point: &pt})
	p.Show(Progress{Kind: Finished, Key: Key{Backend: "poll", Pipes: 20000, InFlight: 1}, Done: 2, Total: 2, Elapsed: 2 * time.Second, Skipped: "needs 40010 descriptors"})
	p.Close()
	want := "sweep 1/2 (2s elapsed, ETA 2s): epoll at 10 pipes, -l 1: 12345 evts/sec\n" +
		"sweep 2/2 (2s elapsed, ETA 0s): poll at 20000 pipes, -l 1: skipped: needs 40010 descriptors\n"
	if b.String() != want {
		t.Errorf("progress lines\n got %q\nwant %q", b.String(), want)
	}
}

func TestProgressBar(t *testing.T) {
	var b strings.Builder
	p := NewBar(&b, "sweep", true, 4, time.Second)
	pt := Point{Key: Key{Backend: "epoll", Pipes: 10, InFlight: 1}, EventsPerSec: 1}
	p.Show(Progress{Kind: Started, Key: pt.Key, Total: 4})
	p.Show(Progress{Kind: Finished, Key: pt.Key, Done: 1, Total: 4, Elapsed: time.Second, Point: &pt})
	out := b.String()
	for _, want := range []string{"(1/4)", "25%", "ETA 3s", "\r"} {
		if !strings.Contains(out, want) {
			t.Errorf("bar output %q lacks %q", out, want)
		}
	}
	p.Close()
	if !strings.HasSuffix(b.String(), "\033[2K\r") {
		t.Errorf("Close did not clear the bar's line: %q", b.String()[len(out):])
	}
}
