package main

import (
	"fmt"
	"strconv"
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
