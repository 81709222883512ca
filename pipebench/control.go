package pipebench

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/internal/tokens"
)

// The reading process and its writer process talk over a SOCK_SEQPACKET
// socketpair: each message is one kind byte and a JSON body, and write ends
// travel with "fds" messages as SCM_RIGHTS. Credits do not use it: they go
// through the credit pipe, whose end also travels here.
const (
	msgSetup  = 'S' // reader → writer: writerSetup
	msgFDs    = 'F' // reader → writer: fdBatch + descriptors
	msgStart  = 'G' // reader → writer: start writing
	msgReady  = 'R' // writer → reader: every descriptor received
	msgReport = 'P' // writer → reader: writerReport, then it exits
	msgError  = 'E' // writer → reader: a failure, then it exits
)

type writerSetup struct {
	Pipes    int    `json:"pipes"`
	InFlight int    `json:"in_flight"`
	Route    Route  `json:"route"`
	Seed     uint64 `json:"seed"`
	Latency  bool   `json:"latency"`
	Source   Source `json:"source"`
	// CPU pins the writing thread; -1 leaves it free.
	CPU int `json:"cpu"`
	// CloseAtStop: close every write end as soon as the writer stops, so
	// that a reader waiting in a blocking read for a token that will never
	// come gets end of file (the bypass: FollowsRoute).
	CloseAtStop bool `json:"close_at_stop"`
}

// writerReady is the writer process's answer once it holds every write end.
type writerReady struct {
	TID int `json:"tid"`
}

type fdBatch struct {
	First int `json:"first"` // pipe index of the first descriptor
	// Credit: the batch is the credit pipe's read end and the memfd of the
	// stop flag (stopflag.go).
	Credit bool `json:"credit"`
}

// writerReport is what a writer says when it stops: its counts (see
// tokens.Writer).
type writerReport struct {
	tokens.WriterCounts
	Error string `json:"error,omitempty"`
	// Thread is the writing thread's usage; Process is the writer process's
	// (process mode only).
	Thread  Usage `json:"thread"`
	Process Usage `json:"process"`
}

// msgNames name the kinds in errors.
var msgNames = map[byte]string{
	msgSetup: "setup", msgFDs: "descriptors", msgStart: "start",
	msgReady: "ready", msgReport: "report", msgError: "error",
}

func msgName(kind byte) string {
	if n, ok := msgNames[kind]; ok {
		return n
	}
	return fmt.Sprintf("unknown (%q)", kind)
}

const maxMsg = 64 << 10

func sendMsg(fd int, kind byte, body any, fds []int) error {
	b := []byte{kind}
	if body != nil {
		j, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("encode %s message: %w", msgName(kind), err)
		}
		b = append(b, j...)
	}
	var oob []byte
	if len(fds) > 0 {
		oob = unix.UnixRights(fds...)
	}
	for {
		err := unix.Sendmsg(fd, b, oob, nil, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("send %s message to the writer process: %w", msgName(kind), err)
		}
		return nil
	}
}

// recvMsg reads one message, waiting at most timeout (< 0: no limit). It
// returns the kind, the body and any descriptors that came with it.
func recvMsg(fd int, timeout time.Duration) (byte, []byte, []int, error) {
	if timeout >= 0 {
		ms := int(timeout / time.Millisecond)
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
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
	oob := make([]byte, unix.CmsgSpace(batchFDs*4))
	for {
		n, oobn, flags, _, err := unix.Recvmsg(fd, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, nil, nil, fmt.Errorf("receive control message: %w", err)
		}
		if n == 0 {
			return 0, nil, nil, errPeerGone
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
			for _, c := range cmsgs {
				r, err := unix.ParseUnixRights(&c)
				if err != nil {
					return 0, nil, nil, fmt.Errorf("parse passed descriptors: %w", err)
				}
				fds = append(fds, r...)
			}
		}
		return buf[0], buf[1:n], fds, nil
	}
}

var (
	errPeerGone  = errors.New("the other end of the control socket is gone")
	errNoMessage = errors.New("timed out")
)
