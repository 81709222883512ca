package timeout

import (
	"fmt"
	"strings"
)

// Mechanism is one way of sleeping until a timeout in a readiness call.
type Mechanism int

const (
	// EpollWait is epoll_wait(2), whose timeout is whole milliseconds: a
	// request is rounded up, never down, so that the call never wakes early.
	EpollWait Mechanism = iota
	// EpollPwait2 is epoll_pwait2(2) (Linux 5.11) with a timespec.
	EpollPwait2
	// Ppoll is ppoll(2) with a timespec.
	Ppoll
	// Pselect6 is pselect6(2) with a timespec.
	Pselect6
	// Timerfd is epoll_wait(2) with no timeout of its own to speak of, over a
	// timerfd armed (relative, CLOCK_MONOTONIC) for the request: the
	// workaround the 2015 thread proposed instead of a new system call.
	Timerfd
	numMechanisms
)

var mechanismNames = [numMechanisms]string{"epoll_wait", "epoll_pwait2", "ppoll", "pselect6", "epoll+timerfd"}

func (m Mechanism) String() string {
	if m < 0 || m >= numMechanisms {
		return fmt.Sprintf("Mechanism(%d)", int(m))
	}
	return mechanismNames[m]
}

// MarshalText writes the mechanism's name into JSON.
func (m Mechanism) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText reads the mechanism's name from JSON: a record reads back
// as it was written.
func (m *Mechanism) UnmarshalText(b []byte) error {
	x, err := ParseMechanism(string(b))
	if err != nil {
		return err
	}
	*m = x
	return nil
}

// Mechanisms lists every mechanism in the order reported.
func Mechanisms() []Mechanism {
	ms := make([]Mechanism, numMechanisms)
	for i := range ms {
		ms[i] = Mechanism(i)
	}
	return ms
}

// ParseMechanism maps a name (as String gives it) to its Mechanism.
func ParseMechanism(s string) (Mechanism, error) {
	for i, n := range mechanismNames {
		if s == n {
			return Mechanism(i), nil
		}
	}
	return 0, fmt.Errorf("unknown mechanism %q: want %s", s, strings.Join(mechanismNames[:], ", "))
}
