package pipebench

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/internal/tokens"
	"github.com/pipebench/pipebench/internal/waitcall"
)

// Bypass is the backend that makes no readiness call (the command's -f, or
// -b bypass): each token is read from the pipe it was written to, at once,
// with no call asking which pipe is ready. It measures the floor, the cost
// of moving a token through a pipe. It is a Loop that reads on the reader
// thread itself (not on goroutines), one byte (or one stamp) per read so
// that a token's pipe is always known, and it has of the run what every
// Loop has, the exported Surface and Worker, nothing more. It runs with
// two writers:
//
//   - self: one thread writes each token and reads it back (move): the
//     read never waits, since the token is there.
//   - process: a writer process writes token k to the k-th pipe of its
//     route, and the reader, following the same route with the same seed,
//     reads the k-th pipe for token k (follow), waiting in a blocking
//     read(2) of that one pipe; it gives the writer its credits back every
//     followCredits tokens. This is what lets -n 10000 -f run where one
//     process cannot hold 20000 descriptors; auto picks it then.
//
// A blocking read of a pipe is restarted by the kernel after a signal, so
// the Go runtime cannot stop the reader while it waits: a stop-the-world
// lasts until the token arrives. With a writer process that is never
// forever: the writer is in another process, which this one's
// stop-the-world does not stop, and it always holds the credit for the
// token the reader waits for (followCredits); when the run ends it closes
// its write ends, which ends the wait with end of file (FollowsRoute). (A
// writer process stopped by a signal, SIGSTOP or a debugger, holds the
// reader, and a stop-the-world, for as long as it stays stopped; the
// harness kills it once the window has closed: readerGrace.) A writer
// thread would be stopped with the rest of the process and never
// write the token, so the bypass refuses it; an unbounded writer (-l 0)
// skips full pipes, so the reader could not know where the next token is,
// and it is refused too.
var Bypass = Factory{
	Name:     "bypass",
	Summary:  "no readiness call: each token is read from the pipe it was written to (the floor)",
	Features: FollowsRoute,
	Writers:  []WriterMode{WriterSelf, WriterProcess},
	Check:    checkBypass,
	OpenLoop: openBypass,
}

// checkBypass refuses the settings the bypass cannot run with.
func checkBypass(c *Config, n Names) error {
	backend := Set("Backend", c.Backend.Name)
	switch {
	case c.Writer == WriterThread:
		return n.Errorf("%s with %s: with a separate writer the bypass waits for each token in a blocking read, which a stop-the-world of this process cannot end, and a writer thread would be stopped with it: use %s self or process",
			backend, Set("Writer", c.Writer), Field("Writer"))
	case c.InFlight == 0:
		return n.Errorf("%s with %s: the unbounded writer skips full pipes, so the bypass could not know which pipe the next token is in: use %s 1 or more",
			backend, Set("InFlight", 0), Field("InFlight"))
	case c.Source == SourceEventfd:
		return n.Errorf("%s with %s: the bypass reads one token per read, an eventfd read takes the whole count", Set("Source", c.Source), backend)
	}
	return nil
}

// bypass keeps the registered read ends by tag, and the tag of each
// registered descriptor.
type bypass struct {
	fds  []int32 // tag -> fd, -1 if none
	tags []int32 // fd -> tag, -1 if none
}

func openBypass(o Options) (Loop, error) {
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

func (b *bypass) CtlCalls() uint64 { return 0 }
func (b *bypass) Close() error     { return nil }

// bypassPublish is how many tokens the bypass moves between two
// publications of its counts.
const bypassPublish = 64

// Run moves the tokens in flight until the run ends: in self mode each
// from the pipe it is in to the next its route picks, reading it and
// writing it on (move), the tokens starting where the harness primed them
// (the prime route); with a writer process, by following the writer's
// route (follow).
func (b *bypass) Run(s *Surface) error {
	w := s.Workers(1)[0]
	if !s.Self() {
		return b.follow(s, w, &followed{route: s.WriterRoute()})
	}
	at := make([]int32, s.InFlight()) // the pipe each token is in
	prime := s.PrimeRoute()
	for k := range at {
		at[k] = int32(prime.Pick())
	}
	return b.move(s, w, at, s.TokenSize())
}

// move is the bypass's hot loop: a read and a write per token, its counts
// published every bypassPublish tokens. It allocates nothing, and reads a
// clock only in latency mode.
func (b *bypass) move(s *Surface, w *Worker, at []int32, size int) error {
	var buf [LatencyTokenSize]byte
	var c Tally // moved since the last publication
	defer func() { w.Count(&c) }()
	for !s.Stopped() {
		for k := range at {
			i := at[k]
			fd := b.fds[i]
			m, e := tokens.Read(fd, buf[:size]).Split()
			if e != 0 {
				return fmt.Errorf("bypass: read pipe %d (fd %d), which holds a token: %w", i, fd, e)
			}
			if m == 0 {
				return &EOFError{Pipe: int(i)}
			}
			c.Reads++
			c.Events++
			c.Tokens++
			_, tok := w.Decode(buf[:m])
			writes, j, err := w.Forward(int(i), 1, tok)
			c.Writes += writes
			if err != nil {
				return err
			}
			at[k] = int32(j)
			if c.Events == bypassPublish {
				w.Count(&c)
				c = Tally{}
				if s.Stopped() {
					return nil
				}
			}
		}
	}
	return nil
}

var _ Loop = (*bypass)(nil)

// followed is where follow is on the writer's route: the route, and the
// tokens read whose credits it has not given back yet.
type followed struct {
	route tokens.Router
	owed  uint64
}

// followCredits is how many tokens the bypass reads between two credit
// words to a writer process with inFlight tokens in flight: half of them,
// rounded up, so that the writer has tokens to write while the reader
// reads. Any batch of at most inFlight is safe: when the reader waits for
// token k it has given back the credits of all but fewer than inFlight
// of the k tokens before it, so the writer may write token k.
func followCredits(inFlight int) uint64 { return uint64(inFlight+1) / 2 }

// follow is the bypass with a writer process: the writer writes token k
// to the k-th pipe of its route, and follow, on the same route with the
// same seed, reads the k-th pipe for it, waiting in a blocking read (the
// harness made the read ends blocking: FollowsRoute). Its counts are
// published every bypassPublish tokens. It allocates nothing, and reads a
// clock only in latency mode. End of file once the run has ended is the
// writer process closing its write ends as it stops (FollowsRoute); before
// that, it is the writer gone.
func (b *bypass) follow(s *Surface, w *Worker, f *followed) error {
	size := s.TokenSize()
	every := followCredits(s.InFlight())
	var buf [LatencyTokenSize]byte
	var c Tally // since the last publication
	defer func() { w.Count(&c) }()
	for !s.Stopped() {
		i := f.route.Pick()
		fd := b.fds[i]
		m, e := readWaiting(fd, buf[:size])
		for e == unix.EINTR {
			m, e = readWaiting(fd, buf[:size])
		}
		if e != 0 {
			return fmt.Errorf("bypass: read pipe %d (fd %d), the next on the writer's route: %w", i, fd, e)
		}
		if m == 0 {
			if s.Stopped() {
				return nil
			}
			return &EOFError{Pipe: i, Noun: s.Noun()}
		}
		if m != size {
			return fmt.Errorf("bypass: read pipe %d (fd %d): %d bytes of a %d-byte token", i, fd, m, size)
		}
		w.Decode(buf[:m])
		c.Reads++
		c.Events++
		c.Tokens++
		if f.owed++; f.owed == every {
			if err := w.Credit(f.owed); err != nil {
				return fmt.Errorf("bypass: give the writer process its credits: %w", err)
			}
			f.owed = 0
			c.Writes++
		}
		if c.Events == bypassPublish {
			w.Count(&c)
			c = Tally{}
		}
	}
	return nil
}

// readWaiting reads fd, a blocking descriptor, as a raw system call that
// keeps the thread's P. The kernel restarts a pipe read after the runtime's
// signals (they are SA_RESTART); an EINTR from elsewhere is retried by the
// caller through this call again, whose prologue is where the goroutine
// stops if the runtime asked it to.
//
//go:noinline
func readWaiting(fd int32, p []byte) (int, unix.Errno) { return tokens.Read(fd, p).Split() }
