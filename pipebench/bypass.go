package pipebench

import (
	"errors"
	"fmt"
	"time"

	"github.com/pipebench/pipebench/internal/tokens"
	"github.com/pipebench/pipebench/internal/waitcall"
)

// Bypass is the backend that makes no readiness call (the command's -f, or
// -b bypass): whoever writes pipe j reads pipe j, at once. It measures the
// floor, the cost of moving a token through a pipe. It is a Driver that
// reads on the reader thread itself (not on goroutines): the harness calls
// Drive there, and Drive moves every token in flight from pipe to pipe
// until the run ends, one byte (or one stamp) per read so that a token's
// pipe is always known.
//
// It runs with the self writer only, for now: one thread writes each token
// and reads it back. (A writer process is for issue 12: both sides would
// follow the same seeded route, and Drive would read each pipe in that
// order; what it needs is in Drive already: the route, the seed, the
// tokens in flight and the credit pipe.)
var Bypass = Factory{
	Name:     "bypass",
	Summary:  "no readiness call: whoever writes a pipe reads it (the floor)",
	Features: NoWaitCall,
	Writers:  []WriterMode{WriterSelf},
	Check:    checkBypass,
	Open:     openBypass,
}

// checkBypass refuses the settings the bypass cannot run with.
func checkBypass(c *Config) error {
	switch {
	case c.Writer != WriterSelf && c.Writer != WriterAuto:
		return ConfigErrorf("{Backend} %s with {Writer} %s: the bypass reads the pipe its writer wrote, so it needs {Writer} self", c.Backend.Name, c.Writer)
	case c.Source == SourceEventfd:
		return ConfigErrorf("{Source} eventfd with {Backend} %s: the bypass reads one token per read, an eventfd read takes the whole count", c.Backend.Name)
	}
	return nil
}

// bypass keeps the registered read ends by tag, and the tag of each
// registered descriptor.
type bypass struct {
	fds  []int32 // tag -> fd, -1 if none
	tags []int32 // fd -> tag, -1 if none
}

func openBypass(o Options) (Backend, error) {
	if o.Pipes < 0 || o.MaxFD < 0 {
		return nil, fmt.Errorf("bypass: negative size in options (pipes %d, max fd %d)", o.Pipes, o.MaxFD)
	}
	return &bypass{fds: waitcall.Grow[int32](nil, o.Pipes-1, -1), tags: waitcall.Grow[int32](nil, o.MaxFD, -1)}, nil
}

func (b *bypass) Add(fd int, tag int32) error {
	if fd < 0 || tag < 0 {
		return fmt.Errorf("bypass add fd %d, tag %d: negative", fd, tag)
	}
	b.tags = waitcall.Grow(b.tags, fd, -1)
	if t := b.tags[fd]; t >= 0 {
		return fmt.Errorf("bypass add fd %d: already registered with tag %d", fd, t)
	}
	b.fds = waitcall.Grow(b.fds, int(tag), -1)
	if b.fds[tag] >= 0 {
		return fmt.Errorf("bypass add fd %d: tag %d is fd %d's", fd, tag, b.fds[tag])
	}
	b.tags[fd], b.fds[tag] = tag, int32(fd)
	return nil
}

func (b *bypass) Remove(fd int, tag int32) error {
	if fd < 0 || fd >= len(b.tags) || b.tags[fd] < 0 {
		return fmt.Errorf("bypass remove fd %d: not registered", fd)
	}
	if b.tags[fd] != tag {
		return fmt.Errorf("bypass remove fd %d: registered with tag %d, not %d", fd, b.tags[fd], tag)
	}
	b.tags[fd], b.fds[tag] = -1, -1
	return nil
}

var errBypassWait = errors.New("the bypass makes no readiness call: the harness drives it (pipebench.Driver)")

// Wait is never called by the harness, which drives this backend.
func (b *bypass) Wait([]int32, time.Duration) (int, error) { return 0, errBypassWait }

func (b *bypass) CtlCalls() uint64     { return 0 }
func (b *bypass) WaitSyscalls() uint64 { return 0 }
func (b *bypass) Close() error         { return nil }

// bypassPublish is how many tokens the bypass moves between two
// publications of its counts.
const bypassPublish = 64

// Drive moves the tokens in flight, each from the pipe it is in to the
// next its route picks, reading it and writing it on, until the run ends.
// The tokens start where the harness primed them (the prime route).
func (b *bypass) Drive(d *Drive) error {
	w := d.Workers(1)[0]
	at := make([]int32, d.inFlight) // the pipe each token is in
	prime := tokens.NewRouter(d.route, d.seed^primeSeed, d.pipes)
	for k := range at {
		at[k] = int32(prime.Pick())
	}
	return b.move(d, w, at, d.format.Size())
}

// move is the bypass's hot loop: a read and a write per token, its counts
// published every bypassPublish tokens. It allocates nothing, and reads a
// clock only in latency mode.
func (b *bypass) move(d *Drive, w *Worker, at []int32, size int) error {
	var buf [LatencyTokenSize]byte
	var events uint64 // moved since the last publication
	defer func() { w.moved(events) }()
	for !d.stop.Load() {
		for k := range at {
			i := at[k]
			fd := b.fds[i]
			m, e := tokens.Read(fd, buf[:size])
			if e != 0 {
				return fmt.Errorf("bypass: read pipe %d (fd %d), which holds a token: %w", i, fd, e)
			}
			if m == 0 {
				return &EOFError{Pipe: int(i)}
			}
			_, tok := w.decode(buf[:m])
			j := int32(w.route.After(int(i)))
			if m, e := tokens.Write(d.wfds[j], tok); e != 0 || m != len(tok) {
				return fmt.Errorf("bypass: write pipe %d (fd %d): %w", j, d.wfds[j], tokens.WriteErr(m, len(tok), e))
			}
			at[k] = j
			events++
			if events == bypassPublish {
				w.moved(events)
				events = 0
				if d.stop.Load() {
					return nil
				}
			}
		}
	}
	return nil
}

var _ Driver = (*bypass)(nil)
