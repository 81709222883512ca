package main

import (
	"strings"
	"testing"
)

// The records cross-a.json and cross-b.json under testdata/compare are
// made by hand on a.json's head: sweeps of epoll, poll and select on 1, 3,
// 10, 30 and 100 pipes, five rounds, each backend's evts/sec a power of
// the pipes times each round's jitter (at most 2%, mean 0). In A, epoll is
// 800k, poll 1.6M/sqrt(n), select 1.3M/sqrt(n): epoll overtakes poll at
// 4 pipes and select at 2.6, and select stays under poll. In B, poll is
// 3.2M/sqrt(n) (epoll overtakes it at 16: moved) and select 800k *
// 2.4^0.2 / n^0.2 (epoll overtakes it at 2.4: no move called; it
// overtakes poll at 57: appeared), and -refine added epoll and poll at 20
// pipes, which A does not have: left out.
func TestCompareCrossingsGolden(t *testing.T) {
	for _, c := range []struct{ name, args string }{{"cross.text", "compare cross-a.json cross-b.json"}} {
		var stdout string
		t.Run(c.name, func(t *testing.T) {
			t.Chdir("testdata/compare")
			var code int
			var stderr string
			code, stdout, stderr = invoke(t, strings.Fields(c.args)...)
			if code != exitOK || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
		})
		checkCompareGolden(t, c.name, stdout)
	}
}
