package osthread

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// Usage is CPU time and context switches from getrusage, for a thread or a
// process, over the measured window.
type Usage struct {
	User   time.Duration `json:"user_ns"`
	System time.Duration `json:"system_ns"`
	// Voluntary context switches (the thread slept, e.g. in a wait call) and
	// involuntary ones (it was preempted).
	Voluntary   int64 `json:"voluntary_ctxsw"`
	Involuntary int64 `json:"involuntary_ctxsw"`
}

// GetUsage is getrusage(2) for who: unix.RUSAGE_THREAD (the calling
// thread; lock the goroutine to it first) or unix.RUSAGE_SELF.
func GetUsage(who int) (Usage, error) {
	var ru unix.Rusage
	if err := unix.Getrusage(who, &ru); err != nil {
		return Usage{}, fmt.Errorf("getrusage: %w", err)
	}
	return Usage{
		User:        time.Duration(ru.Utime.Nano()),
		System:      time.Duration(ru.Stime.Nano()),
		Voluntary:   ru.Nvcsw,
		Involuntary: ru.Nivcsw,
	}, nil
}

// Sub returns u - v.
func (u Usage) Sub(v Usage) Usage {
	return Usage{u.User - v.User, u.System - v.System, u.Voluntary - v.Voluntary, u.Involuntary - v.Involuntary}
}

// Add returns u + v.
func (u Usage) Add(v Usage) Usage {
	return Usage{u.User + v.User, u.System + v.System, u.Voluntary + v.Voluntary, u.Involuntary + v.Involuntary}
}

// CPU is user plus system time.
func (u Usage) CPU() time.Duration { return u.User + u.System }

// Meter measures one thread's or process's usage from StartUsage to Stop.
type Meter struct {
	who   int
	start Usage
	err   error
}

// StartUsage starts measuring who (see GetUsage).
func StartUsage(who int) Meter {
	u, err := GetUsage(who)
	return Meter{who: who, start: u, err: err}
}

// Stop returns the usage since StartUsage.
func (m Meter) Stop() (Usage, error) {
	if m.err != nil {
		return Usage{}, m.err
	}
	u, err := GetUsage(m.who)
	if err != nil {
		return Usage{}, err
	}
	return u.Sub(m.start), nil
}
