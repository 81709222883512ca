// Package fdselect is the select(2) backend of pipebench (the directory is
// named select, a Go keyword, hence the package name). The interest set is a
// bitmap in user memory, copied and handed to the kernel on every call; the
// kernel scans every descriptor below nfds and the caller scans the bitmap
// it returns. The bitmap is sized from Options.MaxFD, not fixed at
// FD_SETSIZE (1024) as unix.FdSet is, so descriptors above 1024 work.
//
// Imports: as imports_test.go at the module's root allows (the table in
// docs/contributing.md shows the rules).
package fdselect

import (
	"fmt"
	"math/bits"
	"time"
	"unsafe"

	"github.com/pipebench/pipebench/internal/waitcall"
	"github.com/pipebench/pipebench/pipebench"
	"golang.org/x/sys/unix"
)

// Factory opens select backends. select changes interest in user memory, so
// it makes no ctl calls and holds no descriptor of its own.
var Factory = pipebench.Factory{
	Name:    "select",
	Summary: "select(2) (pselect6) on a bitmap sized to the largest descriptor",
	FDs:     0,
	Open:    open,
}

// backend keeps its interest set in a set.
type backend struct {
	set   set
	ts    unix.Timespec
	calls uint64 // pselect6 calls, for WaitSyscalls
}

// set is a select interest set: a bitmap of the registered descriptors,
// the work bitmap handed to the kernel (which overwrites it) and the tag
// of each descriptor, by descriptor. Words are unsigned longs as the
// kernel reads them, which on 64-bit Linux is a []uint64 in memory. nfds
// is the highest registered descriptor + 1.
type set struct {
	interest, work []uint64
	tags           []int32
	nfds           int
}

// arm copies the interest bitmap into the work bitmap for a call, as far
// as nfds reaches (the kernel clears the bitmap when the call times
// out), and returns the work bitmap's first word, nil when there is none:
// pselect6's second argument.
func (s *set) arm() *uint64 {
	words := (s.nfds + 63) / 64
	copy(s.work[:words], s.interest[:words])
	if words == 0 {
		return nil
	}
	return unsafe.SliceData(s.work)
}

// ready writes into ready the tags of the n descriptors a pselect6 on s
// found ready, in descriptor order, and returns how many (at most
// len(ready)).
func (s *set) ready(ready []int32, n int) int {
	words, tags := s.work[:(s.nfds+63)/64], s.tags
	k := 0
	if n <= 0 || len(ready) == 0 {
		return 0
	}
	for w, word := range words {
		for ; word != 0; word &= word - 1 {
			ready[k] = tags[w*64+bits.TrailingZeros64(word)]
			k++
			n--
			if n == 0 || k == len(ready) {
				return k
			}
		}
	}
	return k
}

func open(o pipebench.Options) (pipebench.Mechanism, error) {
	if o.Pipes < 0 || o.MaxFD < 0 {
		return nil, fmt.Errorf("select: negative size in options (pipes %d, max fd %d)", o.Pipes, o.MaxFD)
	}
	b := &backend{}
	b.grow(o.MaxFD)
	return b, nil
}

// grow makes room for descriptor fd in all three tables.
func (b *backend) grow(fd int) {
	s := &b.set
	s.interest = waitcall.Grow(s.interest, fd/64, 0)
	s.work = waitcall.Grow(s.work, len(s.interest)-1, 0)
	s.tags = waitcall.Grow(s.tags, len(s.interest)*64-1, -1)
}

func (b *backend) registered(fd int) bool {
	s := &b.set
	return fd >= 0 && fd/64 < len(s.interest) && s.interest[fd/64]&(1<<(fd%64)) != 0
}

func (b *backend) Add(fd int, tag int32) error {
	if fd < 0 {
		return fmt.Errorf("select add fd %d: negative descriptor", fd)
	}
	b.grow(fd)
	if b.registered(fd) {
		return fmt.Errorf("select add fd %d: already registered with tag %d", fd, b.set.tags[fd])
	}
	s := &b.set
	s.interest[fd/64] |= 1 << (fd % 64)
	s.tags[fd] = tag
	s.nfds = max(s.nfds, fd+1)
	return nil
}

func (b *backend) Remove(fd int, tag int32) error {
	if !b.registered(fd) {
		return fmt.Errorf("select remove fd %d: not registered", fd)
	}
	s := &b.set
	s.interest[fd/64] &^= 1 << (fd % 64)
	if fd+1 == s.nfds {
		s.nfds = b.highest() + 1
	}
	return nil
}

// highest returns the highest registered descriptor, or -1 if none.
func (b *backend) highest() int {
	for w := (b.set.nfds - 1) / 64; w >= 0; w-- {
		if word := b.set.interest[w]; word != 0 {
			return w*64 + 63 - bits.LeadingZeros64(word)
		}
	}
	return -1
}

// Wait makes its pselect6 call in place, one frame from its own (the
// Mechanism contract's raw call, waitcall.Raw6), and after EINTR makes it
// again with the time that remains. pselect6 rather than select: it is the
// call every architecture has, and its timespec keeps the timeout's
// nanoseconds.
func (b *backend) Wait(ready []int32, timeout time.Duration) (int, error) {
	if len(ready) == 0 {
		return 0, waitcall.ErrNoRoom
	}
	var start time.Time
	for t := timeout; ; {
		set, ts := b.args(t)
		b.calls++
		n, e := waitcall.Split(waitcall.Raw6(unix.SYS_PSELECT6, uintptr(b.set.nfds), uintptr(unsafe.Pointer(set)), 0, 0, uintptr(unsafe.Pointer(ts)), 0))
		switch e {
		case 0:
			return b.set.ready(ready, n), nil
		case unix.EINTR:
			var ok bool
			if t, ok = waitcall.Interrupted(timeout, &start); !ok {
				return 0, nil
			}
		default:
			return 0, fmt.Errorf("pselect6 nfds %d: %w", b.set.nfds, e)
		}
	}
}

// args are the arguments of a pselect6 call with timeout: the work bitmap,
// the interest bitmap copied in afresh on every call (set.arm), and
// the timeout (nil to block).
func (b *backend) args(timeout time.Duration) (*uint64, *unix.Timespec) {
	set := b.set.arm()
	if timeout < 0 {
		return set, nil
	}
	b.ts = unix.NsecToTimespec(int64(timeout))
	return set, &b.ts
}

func (b *backend) CtlCalls() uint64 { return 0 }

func (b *backend) WaitSyscalls() uint64 { return b.calls }

func (b *backend) Close() error { return nil }
