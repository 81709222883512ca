package pipebench

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Source is the kind of descriptor tokens travel through (-fd).
type Source int

const (
	// SourcePipe: pipe2(2), the benchmark's classic.
	SourcePipe Source = iota
	// SourceUnix: an AF_UNIX stream socketpair.
	SourceUnix
	// SourceTCP: a loopback TCP connection on 127.0.0.1.
	SourceTCP
	// SourceEventfd: one eventfd(2) counter, read and written through the
	// same descriptor; a token adds 1, a read takes the whole count.
	SourceEventfd
)

var sourceNames = [...]string{"pipe", "unix", "tcp", "eventfd"}

func (s Source) String() string {
	if s < 0 || int(s) >= len(sourceNames) {
		return fmt.Sprintf("Source(%d)", int(s))
	}
	return sourceNames[s]
}

// ParseSource maps an -fd value to its Source.
func ParseSource(name string) (Source, error) {
	for i, n := range sourceNames {
		if n == name {
			return Source(i), nil
		}
	}
	return 0, fmt.Errorf("unknown event source %q: want pipe, unix, tcp or eventfd", name)
}

// MarshalText makes a source read as its name in JSON.
func (s Source) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a source from its name.
func (s *Source) UnmarshalText(b []byte) error {
	v, err := ParseSource(string(b))
	*s = v
	return err
}

// noun names one channel in messages.
func (s Source) noun() string {
	switch s {
	case SourceUnix, SourceTCP:
		return "socket"
	case SourceEventfd:
		return "eventfd"
	}
	return "pipe"
}

// fdsPerChannel is how many descriptors one channel takes in a process that
// holds both of its ends.
func (s Source) fdsPerChannel() int {
	if s == SourceEventfd {
		return 1
	}
	return 2
}

// shared reports whether the read and write ends are one descriptor.
func (s Source) shared() bool { return s == SourceEventfd }

// channels makes the channels of one run; tcp needs a listener, kept until
// close.
type channels struct {
	src      Source
	listener int
	addr     unix.Sockaddr
}

func newChannels(src Source) (*channels, error) {
	c := &channels{src: src, listener: -1}
	if src != SourceTCP {
		return c, nil
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("tcp listener: %w", err)
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("tcp listener: bind 127.0.0.1: %w", err)
	}
	if err := unix.Listen(fd, 128); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("tcp listener: %w", err)
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("tcp listener: %w", err)
	}
	c.listener, c.addr = fd, sa
	return c, nil
}

// open makes one channel: r is registered and read, w is written (r == w
// for an eventfd). Both are non-blocking and close-on-exec.
func (c *channels) open() (r, w int, err error) {
	switch c.src {
	case SourcePipe:
		var p [2]int
		if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
			return -1, -1, fmt.Errorf("pipe2: %w", err)
		}
		return p[0], p[1], nil
	case SourceUnix:
		sp, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return -1, -1, fmt.Errorf("socketpair: %w", err)
		}
		return sp[0], sp[1], nil
	case SourceEventfd:
		fd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
		if err != nil {
			return -1, -1, fmt.Errorf("eventfd: %w", err)
		}
		return fd, fd, nil
	case SourceTCP:
		return c.openTCP()
	}
	return -1, -1, fmt.Errorf("unknown source %v", c.src)
}

func (c *channels) openTCP() (r, w int, err error) {
	w, err = unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, -1, fmt.Errorf("tcp socket: %w", err)
	}
	if err := unix.Connect(w, c.addr); err != nil {
		unix.Close(w)
		return -1, -1, fmt.Errorf("tcp connect to 127.0.0.1: %w", err)
	}
	r, _, err = unix.Accept4(c.listener, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
	if err != nil {
		unix.Close(w)
		return -1, -1, fmt.Errorf("tcp accept: %w", err)
	}
	// Tokens are single bytes: send each at once.
	if err := unix.SetsockoptInt(w, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1); err != nil {
		unix.Close(r)
		unix.Close(w)
		return -1, -1, fmt.Errorf("tcp nodelay: %w", err)
	}
	if err := unix.SetNonblock(w, true); err != nil {
		unix.Close(r)
		unix.Close(w)
		return -1, -1, fmt.Errorf("tcp: %w", err)
	}
	return r, w, nil
}

func (c *channels) close() {
	if c != nil && c.listener >= 0 {
		unix.Close(c.listener)
		c.listener = -1
	}
}
