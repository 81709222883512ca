package stats

import (
	"math"
	"testing"
)

func TestPerEvent(t *testing.T) {
	for _, tc := range []struct {
		count, events uint64
		want          float64
	}{
		{10, 4, 2.5},
		{3, 3, 1},
		{0, 5, 0},
		{5, 0, 0},
		{0, 0, 0},
	} {
		if got := PerEvent(tc.count, tc.events); got != tc.want {
			t.Errorf("PerEvent(%d, %d) = %g, want %g", tc.count, tc.events, got, tc.want)
		}
	}
}

func TestRate(t *testing.T) {
	for _, tc := range []struct {
		count   uint64
		seconds float64
		want    float64
	}{
		{100, 2, 50},
		{3, 0.5, 6},
		{0, 1, 0},
		{100, 0, 0},
		{100, -1, 0},
		{100, math.NaN(), 0},
	} {
		if got := Rate(tc.count, tc.seconds); got != tc.want {
			t.Errorf("Rate(%d, %g) = %g, want %g", tc.count, tc.seconds, got, tc.want)
		}
	}
}
