package pipebench

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// The errors of a run, and of the experiments (experiment/herd,
// experiment/timeout), which use these types too.
//
// ConfigError and LimitError name the settings at fault by their Config
// field, in braces in their Format: "{InFlight} %d: want 0 (unbounded) to
// %d tokens in flight". Error writes each field's name ("InFlight 5000:
// ..."); a caller that knows the settings by other names renders them with
// Render. The command maps every field of each Config it fills to the flag
// that sets it ("InFlight" -> "-l"), so that its one-line errors name the
// flags a user typed. Only Format is rendered, never Args: a value is
// printed as it is.

// FieldMessage is an error message that names Config fields in braces.
type FieldMessage struct {
	Format string
	Args   []any
}

var fieldRef = regexp.MustCompile(`\{([A-Z][A-Za-z]*)\}`)

// Render writes the message with each {Field} replaced by name(Field);
// a nil name keeps the field's name.
func (m FieldMessage) Render(name func(field string) string) string {
	format := fieldRef.ReplaceAllStringFunc(m.Format, func(ref string) string {
		field := ref[1 : len(ref)-1]
		if name != nil {
			field = name(field)
		}
		return escapeVerbs(field)
	})
	return fmt.Sprintf(format, m.Args...)
}

// escapeVerbs keeps a name's % from being read as a verb.
func escapeVerbs(s string) string {
	out := make([]byte, 0, len(s))
	for i := range len(s) {
		if s[i] == '%' {
			out = append(out, '%')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// Renderer is an error whose message names Config fields (a *ConfigError,
// a *LimitError): Render writes it with the caller's names for them.
type Renderer interface {
	error
	Render(name func(field string) string) string
}

// RenderError writes err's message with the caller's names for the Config
// fields it names, wherever in err's chain a Renderer is; other errors
// read as Error says.
func RenderError(err error, name func(field string) string) string {
	var r Renderer
	if !errors.As(err, &r) {
		return err.Error()
	}
	msg, inner := err.Error(), r.Error()
	if i := strings.Index(msg, inner); i >= 0 {
		return msg[:i] + r.Render(name) + msg[i+len(inner):]
	}
	return msg
}

// ConfigError is a configuration that cannot run, found before any work.
type ConfigError struct{ FieldMessage }

// ConfigErrorf is a ConfigError whose format names the settings at fault
// as {Field}.
func ConfigErrorf(format string, a ...any) *ConfigError {
	return &ConfigError{FieldMessage{format, a}}
}

func (e *ConfigError) Error() string { return e.Render(nil) }

// LimitError says that a run cannot fit a limit of this machine (the
// descriptor limit, the epoll watch limit), found before any pipe is made:
// it needs Need descriptors (or registrations) where Limit are allowed.
type LimitError struct {
	FieldMessage
	Need  int
	Limit uint64
}

// LimitErrorf is a LimitError whose format names the settings at fault as
// {Field}.
func LimitErrorf(need int, limit uint64, format string, a ...any) *LimitError {
	return &LimitError{FieldMessage{format, a}, need, limit}
}

func (e *LimitError) Error() string { return e.Render(nil) }

// ErrInterrupted is returned when Stop is closed before the measured window
// began: there is nothing to report.
var ErrInterrupted = errors.New("interrupted before the measured window began")

// TokenLossError fails a run whose tokens do not add up.
type TokenLossError struct{ Tokens Tokens }

func (e *TokenLossError) Error() string {
	t := e.Tokens
	return fmt.Sprintf("tokens do not add up: sent %d, received %d, drained %d at teardown: %d lost", t.Sent, t.Received, t.Drained, t.Lost)
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
