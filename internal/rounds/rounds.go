// Package rounds is the order in which an experiment repeated in rounds
// (-count) takes its measurements, so that drift in the machine's load
// touches them all alike: Turned, each round starting one further on (the
// herd's settings, the timeout's samples), and Shuffled, each round in an
// order of its own drawn from a seed, so that the same command runs in the
// same orders (the sweep's points).
//
// Imports: nothing of ours, as imports_test.go at the module's root allows
// (the table in docs/contributing.md shows the rules).
package rounds

import "math/rand/v2"

// Turned is the order of n things in round r (from 1): the first round
// takes them as given, each later one starts one further on, so that with
// two things the order alternates (0, 1; 1, 0; ...).
func Turned(n, r int) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = (i + r - 1) % n
	}
	return order
}

// Shuffled is the order of n things in each of rounds rounds: one round
// takes them as given; several shuffle every round, from seed and the
// round's number.
func Shuffled(n, rounds int, seed uint64) [][]int {
	orders := make([][]int, rounds)
	for r := range orders {
		o := make([]int, n)
		for i := range o {
			o[i] = i
		}
		if rounds > 1 {
			rng := rand.New(rand.NewPCG(seed, uint64(r+1)))
			rng.Shuffle(n, func(a, b int) { o[a], o[b] = o[b], o[a] })
		}
		orders[r] = o
	}
	return orders
}
