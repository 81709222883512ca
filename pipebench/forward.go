package pipebench

import (
	"encoding/binary"
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/internal/tokens"
	"github.com/pipebench/pipebench/stats"
)

// forwarder is what takes the tokens a read brought and moves them on,
// the one code that does it for the reader and for every Loop's workers:
// what a token is, the route and the write ends of self mode, and the
// latency histogram.
type forwarder struct {
	format tokens.Format
	route  tokens.Router
	wfds   []int32 // self mode: where forwarded tokens go
	noun   string  // names a channel in errors: pipe, socket, eventfd
	// send, when set (Worker.QueueWrites), queues the forwarded tokens'
	// writes instead of making them: a RingQueued loop's.
	send Sender
	// lat gets each token's write-to-read time in nanoseconds (latency
	// mode: tokens are stamps).
	lat    stats.Hist
	tokBuf [8]byte
}

// Decode returns how many tokens the bytes b of one read carry, and the
// token to forward them as. In latency mode it records each token's
// write-to-read time, and the token is a stamp of now. It is kept small
// enough to inline (go build -gcflags=-m): one-byte tokens cost no call.
func (f *forwarder) Decode(b []byte) (n int, tok []byte) {
	if f.format != tokens.Byte {
		return f.decodeWide(b)
	}
	return len(b), byteToken
}

// byteToken is a one-byte token.
var byteToken = tokens.ByteToken()

// decodeWide is decode for 8-byte tokens: an eventfd's count, or stamps.
func (f *forwarder) decodeWide(b []byte) (int, []byte) {
	if f.format == tokens.Increment {
		return int(binary.LittleEndian.Uint64(b)), tokens.IncrementToken()
	}
	now := tokens.Nanotime()
	recordStamps(&f.lat, now, b)
	return len(b) / LatencyTokenSize, tokens.PutStamp(&f.tokBuf, now)
}

// Forward moves n tokens tok, read from pipe, on to the pipes the route
// picks (self mode): the next route spreads them over pipe+1, pipe+2, ...,
// so that tokens that arrived together do not travel as one. It writes
// each with write(2), or queues its write (QueueWrites), and returns the
// writes made (none for queued ones, counted when they complete), the
// pipe the last token went to, and the first write that failed.
func (f *forwarder) Forward(pipe, n int, tok []byte) (writes uint64, last int, err error) {
	if n == 1 && f.send == nil {
		// One token written at once, the common case: no loop.
		j := f.route.After(pipe)
		if m, e := tokens.Write(f.wfds[j], tok).Split(); e != 0 || m != len(tok) {
			return 0, j, f.writeErr(pipe, j, m, len(tok), e)
		}
		return 1, j, nil
	}
	return f.forwardMany(pipe, n, tok)
}

// writeErr is the error of the write of a size-byte token from pipe to
// pipe j that returned m and e.
func (f *forwarder) writeErr(pipe, j, m, size int, e unix.Errno) error {
	return fmt.Errorf("forward token from %s %d to %s %d (fd %d): %w", f.noun, pipe, f.noun, j, f.wfds[j], tokens.WriteErr(m, size, e))
}

// forwardMany is Forward of several tokens, or of queued writes.
func (f *forwarder) forwardMany(pipe, n int, tok []byte) (writes uint64, last int, err error) {
	j := f.route.After(pipe)
	for t := range n {
		if t > 0 {
			j = f.route.Pick()
		}
		if f.send != nil {
			if err := f.send.Send(j, f.wfds[j], tok); err != nil {
				return 0, j, err
			}
			continue
		}
		if m, e := tokens.Write(f.wfds[j], tok).Split(); e != 0 || m != len(tok) {
			return uint64(t), j, f.writeErr(pipe, j, m, len(tok), e)
		}
	}
	if f.send != nil {
		return 0, j, nil
	}
	return uint64(n), j, nil
}
