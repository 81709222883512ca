package gonet

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/pipebench"
)

// readSize is the most one read takes, as in the harness's reader.
const readSize = 1024

// sink is what a reading goroutine reports to: a *pipebench.Worker in a
// run, the benchmark's own in tests.
type sink interface {
	// Got handles one read that returned b.
	Got(pipe int, b []byte) error
	// Missed counts one read that found nothing; afterWake says it followed
	// a wake-up from the netpoller.
	Missed(afterWake bool)
}

// pipe is one registered read end as the runtime sees it.
type pipe struct {
	tag  int32
	fd   int      // the harness's descriptor, for messages
	file *os.File // a duplicate of fd, registered with the netpoller
	rc   syscall.RawConn
}

// serve is one goroutine's loop: read p, hand what it read to s, until stop
// is set and the file's read deadline has passed. It allocates once, before
// the loop.
func (p *pipe) serve(s sink, stop *atomic.Bool) error {
	var (
		buf    [readSize]byte
		n      int
		err    error
		waited bool
	)
	read := func(fd uintptr) bool {
		for {
			n, err = unix.Read(int(fd), buf[:])
			if err != unix.EINTR {
				break
			}
		}
		if err == unix.EAGAIN {
			s.Missed(waited)
			waited = true
			return false // park on the netpoller until readable, then again
		}
		return true
	}
	for !stop.Load() {
		waited = false
		if perr := p.rc.Read(read); perr != nil {
			if stop.Load() && errors.Is(perr, os.ErrDeadlineExceeded) {
				return nil
			}
			return fmt.Errorf("gonet: wait for pipe %d (fd %d): %w", p.tag, p.fd, perr)
		}
		if err != nil {
			return fmt.Errorf("gonet: read pipe %d (fd %d): %w", p.tag, p.fd, err)
		}
		if n == 0 {
			return &pipebench.EOFError{Pipe: int(p.tag)}
		}
		if err := s.Got(int(p.tag), buf[:n]); err != nil {
			return err
		}
	}
	return nil
}
