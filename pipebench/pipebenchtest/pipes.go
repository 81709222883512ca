package pipebenchtest

import (
	"errors"
	"testing"

	"golang.org/x/sys/unix"
)

// pipe is one non-blocking pipe. r and w are -1 once closed, so that no
// cleanup closes a number the kernel has since given to someone else.
type pipe struct {
	r, w int
}

// makePipes makes n pipes, closed when the test ends.
func makePipes(tb testing.TB, n int) []*pipe {
	tb.Helper()
	pipes := make([]*pipe, n)
	for i := range pipes {
		var fds [2]int
		if err := unix.Pipe2(fds[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
			tb.Fatalf("pipe2 (pipe %d of %d): %v", i, n, err)
		}
		p := &pipe{r: fds[0], w: fds[1]}
		tb.Cleanup(p.close)
		pipes[i] = p
	}
	return pipes
}

func (p *pipe) close() {
	closeFD(&p.r)
	closeFD(&p.w)
}

func closeFD(fd *int) {
	if *fd >= 0 {
		unix.Close(*fd)
		*fd = -1
	}
}

// closeWrite closes the write end: the read end then reads end of file.
func (p *pipe) closeWrite(tb testing.TB) {
	tb.Helper()
	if err := unix.Close(p.w); err != nil {
		tb.Fatalf("close write end %d: %v", p.w, err)
	}
	p.w = -1
}

var token = []byte{'x'}

// write writes one token.
func (p *pipe) write(tb testing.TB) {
	tb.Helper()
	if n, err := unix.Write(p.w, token); n != 1 || err != nil {
		tb.Fatalf("write to fd %d: n=%d err=%v", p.w, n, err)
	}
}

// drain reads until the pipe is empty or at end of file and returns how
// many bytes it read.
func (p *pipe) drain(tb testing.TB) int {
	tb.Helper()
	var buf [1024]byte
	total := 0
	for {
		n, err := unix.Read(p.r, buf[:])
		switch {
		case errors.Is(err, unix.EAGAIN):
			return total
		case err != nil:
			tb.Fatalf("read from fd %d: %v", p.r, err)
		case n == 0:
			return total
		}
		total += n
	}
}

// moveReadEnd renumbers the read end to the lowest free descriptor at or
// above min, closing the old number.
func (p *pipe) moveReadEnd(tb testing.TB, min int) {
	tb.Helper()
	fd, err := unix.FcntlInt(uintptr(p.r), unix.F_DUPFD_CLOEXEC, min)
	if err != nil {
		tb.Fatalf("fcntl F_DUPFD_CLOEXEC fd %d to >= %d: %v", p.r, min, err)
	}
	closeFD(&p.r)
	p.r = fd
}

// needDescriptors raises the soft RLIMIT_NOFILE to the hard limit and skips
// the test if descriptor number highest still cannot be had.
func needDescriptors(tb testing.TB, highest int) {
	tb.Helper()
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		tb.Fatalf("getrlimit RLIMIT_NOFILE: %v", err)
	}
	if lim.Cur < lim.Max {
		lim.Cur = lim.Max
		if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
			tb.Fatalf("setrlimit RLIMIT_NOFILE soft to %d: %v", lim.Max, err)
		}
	}
	if lim.Cur <= uint64(highest) {
		tb.Skipf("RLIMIT_NOFILE is %d (hard %d): descriptor %d cannot be had", lim.Cur, lim.Max, highest)
	}
}

// isOpen reports whether fd is an open descriptor.
func isOpen(fd int) bool {
	_, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	return err == nil
}
