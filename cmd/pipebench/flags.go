package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/pipebench/pipebench/pipebench"
)

// intFlag is an integer flag with an allowed range, so that a bad value is
// refused with what is allowed.
type intFlag struct {
	v        *int
	min, max int
	what     string
}

func (f intFlag) String() string {
	if f.v == nil {
		return ""
	}
	return strconv.Itoa(*f.v)
}

// allowed is the range -h shows: "1..1000000".
func (f intFlag) allowed() string { return fmt.Sprintf("%d..%d", f.min, f.max) }

func (f intFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < f.min || n > f.max {
		return fmt.Errorf("want a whole number of %s from %d to %d", f.what, f.min, f.max)
	}
	*f.v = n
	return nil
}

// durationFlag is a duration with a lower bound; zero may be allowed with a
// meaning of its own.
type durationFlag struct {
	v        *time.Duration
	min      time.Duration
	zeroOK   string // what 0 means, if allowed
	maxValue time.Duration
}

func (f durationFlag) String() string {
	if f.v == nil {
		return ""
	}
	return f.v.String()
}

// allowed is the range -h shows: "10ms..1h", and what 0 means where it
// is allowed.
func (f durationFlag) allowed() string {
	s := shortDuration(f.min) + ".." + shortDuration(f.maxValue)
	if f.zeroOK != "" {
		s += "; 0: " + f.zeroOK
	}
	return s
}

// shortDuration prints d without the zero units time.Duration prints:
// 24h, not 24h0m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	for _, zero := range []string{"0s", "0m"} {
		if t, ok := strings.CutSuffix(s, zero); ok && strings.ContainsAny(t, "hm") {
			s = t
		}
	}
	return s
}

func (f durationFlag) Set(s string) error {
	d, err := time.ParseDuration(s)
	allowed := fmt.Sprintf("want a duration from %v to %v such as 10s or 500ms", f.min, f.maxValue)
	if f.zeroOK != "" {
		allowed += " (0 " + f.zeroOK + ")"
	}
	if err != nil {
		return fmt.Errorf("%s", allowed)
	}
	if d == 0 && f.zeroOK != "" {
		*f.v = 0
		return nil
	}
	if d < f.min || d > f.maxValue {
		return fmt.Errorf("%s", allowed)
	}
	*f.v = d
	return nil
}

// uintFlag is an unsigned 64-bit number, refused with what is allowed.
type uintFlag struct{ v *uint64 }

func (f uintFlag) String() string {
	if f.v == nil {
		return ""
	}
	return strconv.FormatUint(*f.v, 10)
}

func (f uintFlag) Set(s string) error {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return fmt.Errorf("want a whole number from 0 to %d", uint64(math.MaxUint64))
	}
	*f.v = n
	return nil
}

// choiceFlag accepts one of a fixed list of words.
type choiceFlag struct {
	v     *string
	check func(string) error
}

func (f choiceFlag) String() string {
	if f.v == nil {
		return ""
	}
	return *f.v
}

func (f choiceFlag) Set(s string) error {
	if err := f.check(s); err != nil {
		return err
	}
	*f.v = s
	return nil
}

// listFlag is a comma-separated list whose every item is parsed on its own.
// An empty item is refused, and so is a list of more than max items (when
// max > 0, saying tooMany), and an item given twice, unless repeats is set:
// a list of points to measure holds each once, a pair of CPUs may name one
// twice.
type listFlag[T any] struct {
	v       *[]T
	parse   func(string) (T, error)
	max     int
	tooMany string
	repeats bool
}

// newListFlag returns f writing to v, set to def.
func newListFlag[T any](v *[]T, def string, f listFlag[T]) listFlag[T] {
	f.v = v
	if err := f.Set(def); err != nil {
		panic(fmt.Sprintf("default %q: %v", def, err)) // a constant of the caller
	}
	return f
}

// list says the flag takes a comma-separated list (-h's placeholder).
func (f listFlag[T]) list() {}

func (f listFlag[T]) String() string {
	if f.v == nil {
		return ""
	}
	items := make([]string, len(*f.v))
	for i, x := range *f.v {
		items[i] = fmt.Sprint(x)
	}
	return strings.Join(items, ",")
}

func (f listFlag[T]) Set(s string) error {
	items := strings.Split(s, ",")
	if f.max > 0 && len(items) > f.max {
		return errors.New(f.tooMany)
	}
	var out []T
	seen := map[string]bool{}
	for _, item := range items {
		item = strings.TrimSpace(item)
		switch {
		case item == "":
			return fmt.Errorf("empty item: want a comma-separated list with no empty item")
		case seen[item] && !f.repeats:
			return fmt.Errorf("%s is listed twice", item)
		}
		seen[item] = true
		x, err := f.parse(item)
		if err != nil {
			return err
		}
		out = append(out, x)
	}
	*f.v = out
	return nil
}

// intItem parses one number of a list with intFlag's range and message.
func intItem(lo, hi int, what string) func(string) (int, error) {
	return func(s string) (int, error) {
		var n int
		if err := (intFlag{&n, lo, hi, what}).Set(s); err != nil {
			return 0, fmt.Errorf("%q: %w", s, err)
		}
		return n, nil
	}
}

// cpuList is -cpu's list: one CPU (every measured thread on it) or one per
// thread, readers then writers (0,1: reader, writer); 0,0 names CPU 0 for
// both, as 0 does. How many a run wants is the run's to check.
func cpuList(v *[]int) listFlag[int] {
	return listFlag[int]{v: v, max: pipebench.MaxThreads * 2, repeats: true,
		tooMany: fmt.Sprintf("want at most %d CPUs, one per measured thread", pipebench.MaxThreads*2),
		parse: func(s string) (int, error) {
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 {
				return 0, fmt.Errorf("want CPU numbers such as 0 or 0,1, or spread")
			}
			return n, nil
		}}
}

// cpuFlag is -cpu: a cpuList, or spread (round-robin over the CPUs this
// process may use).
type cpuFlag struct {
	list   listFlag[int]
	spread *bool
}

func (f cpuFlag) String() string {
	if f.spread != nil && *f.spread {
		return "spread"
	}
	return f.list.String()
}

func (f cpuFlag) Set(s string) error {
	*f.spread = s == "spread"
	if *f.spread {
		*f.list.v = nil
		return nil
	}
	return f.list.Set(s)
}

// rateFlag is -rate: tokens per second, above 0, with k (thousand) or M
// (million) after the number if wished: 370000, 370k, 1.5M.
type rateFlag struct{ v *float64 }

func (f rateFlag) String() string {
	if f.v == nil || *f.v == 0 {
		return ""
	}
	return strconv.FormatFloat(*f.v, 'f', -1, 64)
}

// allowed is the range -h shows.
func (f rateFlag) allowed() string { return fmt.Sprintf("above 0, up to %gM", pipebench.MaxRate/1e6) }

func (f rateFlag) Set(s string) error {
	num, unit := s, 1.0
	if n, ok := strings.CutSuffix(s, "k"); ok {
		num, unit = n, 1e3
	} else if n, ok := strings.CutSuffix(s, "M"); ok {
		num, unit = n, 1e6
	}
	x, err := strconv.ParseFloat(num, 64)
	if x *= unit; err != nil || !(x > 0 && x <= pipebench.MaxRate) {
		return fmt.Errorf("want tokens per second above 0 and up to %gM, such as 370000, 370k or 1.5M", pipebench.MaxRate/1e6)
	}
	*f.v = x
	return nil
}
