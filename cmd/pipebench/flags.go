package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
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

// cpuListFlag is one CPU number or two, comma-separated.
type cpuListFlag struct{ v *[]int }

func (f cpuListFlag) String() string {
	if f.v == nil {
		return ""
	}
	parts := make([]string, len(*f.v))
	for i, c := range *f.v {
		parts[i] = strconv.Itoa(c)
	}
	return strings.Join(parts, ",")
}

func (f cpuListFlag) Set(s string) error {
	parts := strings.Split(s, ",")
	if len(parts) > 2 {
		return fmt.Errorf("want one CPU (reader and writer together) or two (reader,writer), such as 0 or 0,1")
	}
	cpus := make([]int, 0, len(parts))
	for _, p := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 0 {
			return fmt.Errorf("want CPU numbers such as 0 or 0,1")
		}
		cpus = append(cpus, n)
	}
	*f.v = cpus
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
