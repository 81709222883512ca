package main

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/pipebench/pipebench/experiment/compare"
	"github.com/pipebench/pipebench/experiment/sweep"
)

// The records cross-a.json and cross-b.json under testdata/compare, whose
// comparison TestCompareSittingsGolden renders (cross.text), are made by
// hand on a.json's head: sweeps of epoll, poll and select on 1, 3, 10, 30
// and 100 pipes, five rounds, each backend's evts/sec a power of the pipes
// times each round's jitter (at most 2%, mean 0), so that the sweep finds
// each crossing where the powers meet. In A, epoll is 800k, poll
// 1.6M/sqrt(n), select 1.3M/sqrt(n): epoll overtakes poll at 4 pipes and
// select at 2.64, and select stays under poll. In B, poll is 3.2M/sqrt(n)
// (epoll overtakes it at 16: moved) and select 800k * 2.4^0.2 / n^0.2
// (epoll overtakes it at 2.4: no move called; it overtakes poll at 57:
// appeared), and -refine added epoll and poll at 20 pipes, which A does
// not have: left out.
func TestCrossRecords(t *testing.T) {
	for _, c := range []struct {
		path string
		want []string
	}{
		{"cross-a.json", []string{"epoll over poll at 4", "epoll over select at 2.64"}},
		{"cross-b.json", []string{"epoll over poll at 16", "epoll over select at 2.4", "select over poll at 56.7"}},
	} {
		l, err := compare.ReadRecord("testdata/compare/" + c.path)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range sweep.FindCrossings(l.Sweep).Pairs {
			for _, x := range p.Crossings {
				if !x.Resolved {
					t.Errorf("%s: %s over %s not resolved", c.path, x.Over, x.Under)
				}
				got = append(got, fmt.Sprintf("%s over %s at %.3g", x.Over.Backend, x.Under.Backend, math.Round(x.At*100)/100))
			}
		}
		if strings.Join(got, ", ") != strings.Join(c.want, ", ") {
			t.Errorf("%s: crossings %q, want %q", c.path, got, c.want)
		}
	}
}
