package compare

import (
	"fmt"
	"testing"
)

// match keeps the crossings' order, makes as many pairs as it can, and
// of the ways to, takes the nearest on log pipes.
func TestMatchCrossings(t *testing.T) {
	for _, c := range []struct {
		a, b []float64
		want string
	}{
		{[]float64{5}, []float64{20}, "[[0 0]]"},
		{nil, []float64{20}, "[]"},
		{[]float64{5, 50}, []float64{30, 400}, "[[0 0] [1 1]]"}, // in order, though 50 is nearer 30
		{[]float64{2, 50}, []float64{60}, "[[1 0]]"},            // the nearer
		{[]float64{60}, []float64{2, 3, 50}, "[[0 2]]"},         // the nearest
		{[]float64{4, 40, 400}, []float64{45, 500}, "[[1 0] [2 1]]"},
	} {
		if got := fmt.Sprint(append([][2]int{}, match(c.a, c.b)...)); got != c.want {
			t.Errorf("match(%v, %v) = %s, want %s", c.a, c.b, got, c.want)
		}
	}
}
