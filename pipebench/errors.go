package pipebench

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// The errors of a run, and of the experiments (experiment/herd,
// experiment/timeout), which use these types too.
//
// A rule that refuses a setting (Prepare's, a backend's Factory.Check, an
// experiment's own) writes its message once, with the caller's names for
// the settings: Names.Errorf takes a format and arguments as fmt.Sprintf
// does, and writes every Setting among them (Set, Field) by the caller's
// Names. The command's names are its flags ("-l 5000: want 0 (unbounded)
// to 4096 tokens in flight"); nil Names write the Config's own fields
// ("InFlight 5000: ..."). The error keeps the fields it names (Fields), for
// a program to read.

// Names writes a setting as the caller knows it: field is a Config field
// ("InFlight"), value its value as text, or "" to name the field alone.
// The command's Names are its flags ("-l 5000", "-b"); nil Names write the
// field, then its value ("InFlight 5000").
type Names func(field, value string) string

// A Setting is a setting named in a message: a Config field and its value,
// or the field alone (Value nil). Names.Errorf writes it by the caller's
// names.
type Setting struct {
	Field string
	Value any
}

// Set names field with its value ("-l 5000").
func Set(field string, value any) Setting { return Setting{Field: field, Value: value} }

// Field names field alone ("use -writer self").
func Field(field string) Setting { return Setting{Field: field} }

// name writes s by n.
func (n Names) name(s Setting) string {
	value := ""
	if s.Value != nil {
		value = fmt.Sprint(s.Value)
	}
	switch {
	case n != nil:
		return n(s.Field, value)
	case value == "":
		return s.Field
	}
	return s.Field + " " + value
}

// write is format with a as fmt.Sprintf writes them, each Setting among a
// written by n, and the fields those name, each once, in order.
func (n Names) write(format string, a []any) (msg string, fields []string) {
	args := make([]any, len(a))
	for i, x := range a {
		s, ok := x.(Setting)
		if !ok {
			args[i] = x
			continue
		}
		args[i] = n.name(s)
		if !slices.Contains(fields, s.Field) {
			fields = append(fields, s.Field)
		}
	}
	return fmt.Sprintf(format, args...), fields
}

// Errorf is the ConfigError of a rule: format and a as fmt.Sprintf takes
// them, every Setting among a written by n.
func (n Names) Errorf(format string, a ...any) *ConfigError {
	msg, fields := n.write(format, a)
	return &ConfigError{Fields: fields, msg: msg}
}

// LimitErrorf is the LimitError of a run that needs need descriptors (or
// registrations) where limit are allowed: format and a as Errorf takes
// them.
func (n Names) LimitErrorf(need int, limit uint64, format string, a ...any) *LimitError {
	msg, fields := n.write(format, a)
	return &LimitError{Fields: fields, Need: need, Limit: limit, msg: msg}
}

// ConfigError is a configuration that cannot run, found before any work
// (by Prepare, or an experiment's own Prepare).
type ConfigError struct {
	// Fields are the Config fields the message names, each once, in the
	// order it names them.
	Fields []string
	msg    string
}

func (e *ConfigError) Error() string { return e.msg }

// LimitError says that a run cannot fit a limit of this machine (the
// descriptor limit, the epoll watch limit), found before any pipe is made:
// it needs Need descriptors (or registrations) where Limit are allowed.
type LimitError struct {
	// Fields are the Config fields the message names, as ConfigError's.
	Fields []string
	Need   int
	Limit  uint64
	msg    string
}

func (e *LimitError) Error() string { return e.msg }

// ErrInterrupted is returned when Observers.Stop is closed before the
// measured window began: there is nothing to report.
var ErrInterrupted = errors.New("interrupted before the measured window began")

// TokenLossError fails a run whose tokens do not add up: the run's, or
// one writer's (Of names it: "writer 2"; empty for the run's).
type TokenLossError struct {
	Of     string
	Tokens Tokens
}

func (e *TokenLossError) Error() string {
	t := e.Tokens
	msg := fmt.Sprintf("tokens do not add up: sent %d, received %d, drained %d at teardown: %d lost", t.Sent, t.Received, t.Drained, t.Lost)
	if e.Of != "" {
		return e.Of + ": " + msg
	}
	return msg
}

// StallError ends a run that made no progress: no event for For, after
// Received tokens.
type StallError struct {
	For      time.Duration
	Received uint64
}

func (e *StallError) Error() string {
	return fmt.Sprintf("stalled: no event for %v (%d tokens received before); the backend or the writer stopped delivering", e.For, e.Received)
}
