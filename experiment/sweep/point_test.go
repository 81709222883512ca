package sweep

import "testing"

func TestSamplesVary(t *testing.T) {
	pts := func(vs ...float64) []Point {
		var ps []Point
		for _, v := range vs {
			ps = append(ps, Point{SamplesPerCall: v, SamplesApply: true})
		}
		return ps
	}
	cases := []struct {
		name   string
		points []Point
		want   bool
	}{
		{"one token in flight", pts(1, 1.0003, 1), false},
		{"batches grow", pts(1, 3.9, 760), true},
		{"no readiness call", []Point{{SamplesPerCall: 0}, {SamplesPerCall: 0}}, false},
		{"none", nil, false},
	}
	for _, c := range cases {
		if got := SamplesVary(c.points); got != c.want {
			t.Errorf("%s: SamplesVary = %v, want %v", c.name, got, c.want)
		}
	}
}
