package pipebench

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The errors of a run, and of the experiments (experiment/herd,
// experiment/timeout), which use these types too.
//
// ConfigError and LimitError are a Message: text, and the settings at
// fault as Parts that name their Config field ("InFlight") and value.
// Error writes each field by its name ("InFlight 5000: want 0 (unbounded)
// to 4096 tokens in flight"); a caller that knows the settings by other
// names writes them with Render. The command names them by the flags that
// set them ("-l 5000: ..."), from one map of field to flag.

// A Part is a piece of a Message: Text as it is, or a Config field
// (Field, with Value the setting's value, "" to name the field alone).
type Part struct {
	Field, Value string
	Text         string
}

// Field is the part naming a Config field alone ("use Writer self").
func Field(name string) Part { return Part{Field: name} }

// Setting is the part naming a Config field and its value ("Churn 5").
func Setting(field string, value any) Part { return Part{Field: field, Value: fmt.Sprint(value)} }

// Text is a part of plain text, formatted as fmt.Sprintf does.
func Text(format string, a ...any) Part { return Part{Text: fmt.Sprintf(format, a...)} }

// A Message is an error message made of parts, some of which name Config
// fields.
type Message []Part

// Namer writes a Config field and its value (value "" when the message
// names the field alone) as the caller knows the setting.
type Namer func(field, value string) string

// FieldName is the Namer of the Config's own names: the field, then its
// value.
func FieldName(field, value string) string {
	if value == "" {
		return field
	}
	return field + " " + value
}

// Render writes the message with name's words for its fields.
func (m Message) Render(name Namer) string {
	var b strings.Builder
	for _, p := range m {
		if p.Field == "" {
			b.WriteString(p.Text)
			continue
		}
		b.WriteString(name(p.Field, p.Value))
	}
	return b.String()
}

// Fields lists the Config fields the message names, each once, in order.
func (m Message) Fields() []string {
	var fs []string
	for _, p := range m {
		if p.Field != "" && !slices.Contains(fs, p.Field) {
			fs = append(fs, p.Field)
		}
	}
	return fs
}

func (m Message) Error() string { return m.Render(FieldName) }

// Renderer is an error whose message names Config fields (a *ConfigError,
// a *LimitError): Render writes it with the caller's names for them.
type Renderer interface {
	error
	Render(name Namer) string
}

// RenderError writes err's message with the caller's names for the Config
// fields it names, wherever in err's chain a Renderer is (the text that
// wraps it is kept as it is); other errors read as Error says.
func RenderError(err error, name Namer) string {
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
type ConfigError struct{ Message }

// NewConfigError is the ConfigError of the message made of parts.
func NewConfigError(parts ...Part) *ConfigError { return &ConfigError{parts} }

// LimitError says that a run cannot fit a limit of this machine (the
// descriptor limit, the epoll watch limit), found before any pipe is made:
// it needs Need descriptors (or registrations) where Limit are allowed.
type LimitError struct {
	Message
	Need  int
	Limit uint64
}

// NewLimitError is the LimitError of the message made of parts.
func NewLimitError(need int, limit uint64, parts ...Part) *LimitError {
	return &LimitError{parts, need, limit}
}

// ErrInterrupted is returned when Stop is closed before the measured window
// began: there is nothing to report.
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
