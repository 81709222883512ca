package pipebench

// router picks the pipe a token goes to next. It is a value type with no
// allocation, used by the reader (self mode) and by the writer.
type router struct {
	state uint64
	n     uint64
	last  uint64
	next  bool
}

func newRouter(r Route, seed uint64, pipes int) router {
	// splitmix64 turns any seed, 0 included, into a valid xorshift state.
	z := seed + 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	if z == 0 {
		z = 1
	}
	return router{state: z, n: uint64(pipes), next: r == RouteNext}
}

// pick returns the next pipe index in [0, n).
func (r *router) pick() int {
	if r.next {
		r.last++
		if r.last >= r.n {
			r.last = 0
		}
		return int(r.last)
	}
	// xorshift64*, reduced to [0, n) by multiply-shift (Lemire).
	x := r.state
	x ^= x >> 12
	x ^= x << 25
	x ^= x >> 27
	r.state = x
	v := (x * 0x2545f4914f6cdd1d) >> 32
	return int((v * r.n) >> 32)
}

// after returns the pipe that follows i on the next-pipe route, or a random
// one; self mode forwards from the pipe just read.
func (r *router) after(i int) int {
	if r.next {
		r.last = uint64(i)
	}
	return r.pick()
}
