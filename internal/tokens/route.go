package tokens

import "fmt"

// Route says how the next pipe for a token is chosen.
type Route int

const (
	// RouteRandom picks the next pipe with a seeded xorshift generator, as
	// the original's rand() did.
	RouteRandom Route = iota
	// RouteNext sends the token to pipe i+1 (wrapping).
	RouteNext
)

func (r Route) String() string {
	if r == RouteNext {
		return "next"
	}
	return "random"
}

// MarshalText makes a route read as its name in JSON.
func (r Route) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText reads a route from its name.
func (r *Route) UnmarshalText(b []byte) error {
	v, err := ParseRoute(string(b))
	*r = v
	return err
}

// ParseRoute maps a route's name to its Route.
func ParseRoute(s string) (Route, error) {
	switch s {
	case "random":
		return RouteRandom, nil
	case "next":
		return RouteNext, nil
	}
	return 0, fmt.Errorf("unknown route %q: want random or next", s)
}

// Router picks the pipe a token goes to next. It is a value with no
// allocation, used by the reader (self mode), by a Loop's workers and by
// the writer.
type Router struct {
	state uint64
	n     uint64
	last  uint64
	next  bool
}

// NewRouter returns a router of kind r over pipes pipes, seeded with seed.
func NewRouter(r Route, seed uint64, pipes int) Router {
	// splitmix64 turns any seed, 0 included, into a valid xorshift state.
	z := seed + 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	if z == 0 {
		z = 1
	}
	return Router{state: z, n: uint64(pipes), next: r == RouteNext}
}

// Pick returns the next pipe index in [0, n).
func (r *Router) Pick() int {
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

// After returns the pipe that follows i on the next-pipe route, or a random
// one; self mode forwards from the pipe just read.
func (r *Router) After(i int) int {
	if r.next {
		r.last = uint64(i)
	}
	return r.Pick()
}
