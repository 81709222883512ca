package child

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// Kind is a message's kind byte. The package's own kinds are upper-case
// letters 'C', 'F' and 'E'; a role picks its others.
type Kind byte

const (
	kindConfig Kind = 'C' // parent → child: the configuration, first
	kindFDs    Kind = 'F' // parent → child: fdBatch + descriptors
	kindError  Kind = 'E' // child → parent: failure, then it exits
)

// MaxFDs is how many descriptors travel in one message (the kernel's
// SCM_MAX_FD is 253). A child's parent holds at most this many descriptors
// that are in flight to it.
const MaxFDs = 250

const maxMsg = 64 << 10

// fdBatch numbers a batch of descriptors: the first one's index among all
// the descriptors the connection has carried.
type fdBatch struct {
	First int `json:"first"`
}

// failure is an error message's body.
type failure struct {
	Error string `json:"error"`
}

var (
	// ErrPeerGone: the other end of the control socket was closed.
	ErrPeerGone = errors.New("the other end of the control socket is gone")
	// ErrStopped: Await gave up because its stop channel was closed.
	ErrStopped   = errors.New("stopped")
	errNoMessage = errors.New("timed out")
)

// Conn is one end of a parent's control socket with its child.
type Conn struct {
	fd     int
	role   *Role
	peer   string // names the other end in errors
	config []byte // the child's: the body of the configuration message
	sent   int    // descriptors sent (parent) or received (child) so far
}

// Config decodes the child's configuration, the first message its parent
// sent, into v.
func (c *Conn) Config(v any) error {
	if err := json.Unmarshal(c.config, v); err != nil {
		return fmt.Errorf("decode %s configuration: %w", c.role.Name, err)
	}
	return nil
}

func (c *Conn) kindName(k Kind) string {
	switch k {
	case kindConfig:
		return "configuration"
	case kindFDs:
		return "descriptors"
	case kindError:
		return "error"
	}
	if n, ok := c.role.Kinds[k]; ok {
		return n
	}
	return fmt.Sprintf("unknown (%q)", byte(k))
}

// Send sends one message of kind k with body encoded as JSON (none if nil).
func (c *Conn) Send(k Kind, body any) error { return c.send(k, body, nil) }

func (c *Conn) send(k Kind, body any, fds []int) error {
	b := []byte{byte(k)}
	if body != nil {
		j, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("encode %s message: %w", c.kindName(k), err)
		}
		b = append(b, j...)
	}
	var oob []byte
	if len(fds) > 0 {
		oob = unix.UnixRights(fds...)
	}
	for {
		err := unix.Sendmsg(c.fd, b, oob, nil, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("send %s message to the %s: %w", c.kindName(k), c.peer, err)
		}
		return nil
	}
}

// SendFDs sends descriptors, in batches of at most MaxFDs; the child
// receives them in the same order (RecvFDs). The caller keeps its own
// copies, to close when it likes.
func (c *Conn) SendFDs(fds []int) error {
	for len(fds) > 0 {
		n := min(len(fds), MaxFDs)
		if err := c.send(kindFDs, fdBatch{First: c.sent}, fds[:n]); err != nil {
			return err
		}
		c.sent += n
		fds = fds[n:]
	}
	return nil
}

// RecvFDs receives the next n descriptors its parent sent (SendFDs), close
// on exec.
func (c *Conn) RecvFDs(n int) ([]int, error) {
	fds := make([]int, 0, n)
	for len(fds) < n {
		k, body, got, err := c.recv(-1)
		if err != nil {
			return fds, err
		}
		if k != kindFDs {
			closeAll(got)
			return fds, c.unexpected(k, kindFDs, body)
		}
		var b fdBatch
		if err := json.Unmarshal(body, &b); err != nil {
			closeAll(got)
			return fds, fmt.Errorf("decode descriptor batch: %w", err)
		}
		if b.First != c.sent || len(fds)+len(got) > n {
			closeAll(got)
			return fds, fmt.Errorf("descriptor batch %d..%d out of order (have %d, want %d more)", b.First, b.First+len(got), c.sent, n-len(fds))
		}
		fds = append(fds, got...)
		c.sent += len(got)
	}
	return fds, nil
}

// Expect waits, with no limit, for the next message, which must be of kind
// want, and returns its body.
func (c *Conn) Expect(want Kind) ([]byte, error) {
	k, body, fds, err := c.recv(-1)
	if err != nil {
		return nil, err
	}
	closeAll(fds)
	if k != want {
		return nil, c.unexpected(k, want, body)
	}
	return body, nil
}

// WaitClosed waits until the other end closes the socket (or sends
// anything).
func (c *Conn) WaitClosed() {
	_, _, fds, _ := c.recv(-1)
	closeAll(fds)
}

// unexpected describes a message of kind k where want was expected: the
// peer's own failure, if that is what it sent.
func (c *Conn) unexpected(k, want Kind, body []byte) error {
	if k == kindError {
		var f failure
		_ = json.Unmarshal(body, &f)
		return fmt.Errorf("%s failed: %s", c.peer, f.Error)
	}
	return fmt.Errorf("%s sent a %s message, expected %s", c.peer, c.kindName(k), c.kindName(want))
}

// recv reads one message, waiting at most timeout (< 0: no limit). It
// returns the kind, the body and any descriptors that came with it.
func (c *Conn) recv(timeout time.Duration) (Kind, []byte, []int, error) {
	if timeout >= 0 {
		ms := int(timeout / time.Millisecond)
		pfd := []unix.PollFd{{Fd: int32(c.fd), Events: unix.POLLIN}}
		for {
			n, err := unix.Poll(pfd, ms)
			if err == unix.EINTR {
				continue
			}
			if err != nil {
				return 0, nil, nil, fmt.Errorf("wait for control message: %w", err)
			}
			if n == 0 {
				return 0, nil, nil, fmt.Errorf("no control message within %v: %w", timeout, errNoMessage)
			}
			break
		}
	}
	buf := make([]byte, maxMsg)
	oob := make([]byte, unix.CmsgSpace(MaxFDs*4))
	for {
		n, oobn, flags, _, err := unix.Recvmsg(c.fd, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, nil, nil, fmt.Errorf("receive control message: %w", err)
		}
		if n == 0 {
			return 0, nil, nil, ErrPeerGone
		}
		if flags&(unix.MSG_TRUNC|unix.MSG_CTRUNC) != 0 {
			return 0, nil, nil, fmt.Errorf("control message truncated (flags %#x): descriptor limit reached?", flags)
		}
		var fds []int
		if oobn > 0 {
			cmsgs, err := unix.ParseSocketControlMessage(oob[:oobn])
			if err != nil {
				return 0, nil, nil, fmt.Errorf("parse control message: %w", err)
			}
			for _, cm := range cmsgs {
				r, err := unix.ParseUnixRights(&cm)
				if err != nil {
					closeAll(fds)
					return 0, nil, nil, fmt.Errorf("parse passed descriptors: %w", err)
				}
				fds = append(fds, r...)
			}
		}
		return Kind(buf[0]), buf[1:n], fds, nil
	}
}

func closeAll(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}
