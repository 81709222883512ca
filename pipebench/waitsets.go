package pipebench

import (
	"math/bits"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The interest sets whose wait the harness's reader makes in its own
// loop. A Mechanism whose Wait is one system call on such a set and
// nothing else hands the set to the reader (EpollSet, PollWait,
// SelectWait), and the reader makes that call itself and reads the ready
// tags from the set, as the C yardstick's reader does: no backend code
// runs around its wait (each call into the backend there cost about half
// a point of evts/sec; docs/speed.md). The reader counts those system
// calls itself, with the readiness calls' (WaitSyscalls counts the
// backend's own), and calls Wait, which knows what an interrupted call
// needs, whenever its own call fails with EINTR. The functions that read
// a set's result (EpollTags, PollSet.Ready, SelectSet.Ready) are the ones
// the backends' Wait calls too: one copy each.

// EpollSet is implemented by a Mechanism that is an epoll set whose Wait
// is one epoll_pwait and nothing else: no one-shot re-arm before it, no
// nested sets, no sleep through the Go scheduler; each event's Fd field
// holds the tag its descriptor was added with. EpollSet returns the set's
// descriptor and the event array Wait passes to the kernel, or ok false
// when Wait does more than that call.
type EpollSet interface {
	EpollSet() (epfd int, events []unix.EpollEvent, ok bool)
}

// EpollTags writes the tag of each of events (its Fd field, as EpollSet
// says) into ready and returns how many: what a plain epoll set's wait
// reports, whether the backend's Wait made it or the reader.
func EpollTags(ready []int32, events []unix.EpollEvent) int {
	for i, ev := range events {
		ready[i] = ev.Fd
	}
	return len(events)
}

// PollWait is implemented by a Mechanism whose Wait is one ppoll on a
// PollSet, with no signal mask, and nothing else. PollSet returns that
// set, which the Mechanism keeps changing as descriptors are added and
// removed (the caller reads its fields afresh for every call), or ok
// false when Wait does more than that call.
type PollWait interface {
	PollSet() (set *PollSet, ok bool)
}

// PollSet is a ppoll interest set: the array handed to the kernel, all of
// it, and the tag of each entry.
type PollSet struct {
	Fds  []unix.PollFd
	Tags []int32
}

// Ready writes into ready the tags of the entries a ppoll on s that
// returned n found ready, in array order, and returns how many (at most
// len(ready)). n counts the entries with any revents: with only POLLIN
// asked for, POLLIN, POLLHUP (end of file), POLLERR or POLLNVAL, all
// reported, since the caller's read is what tells them apart and a
// POLLNVAL left unreported would make the wait a busy loop.
//
// The scan tests one entry per step and nothing else: the count and the
// room are checked at a ready entry only. At 1000 descriptors it is most
// of the instructions the reader executes per call, so it stays a call
// (noinline): inlined into the reader's loop, whose registers are taken,
// it kept its index and count on the stack and ran about twice the
// instructions per entry (docs/speed.md).
//
//go:noinline
func (s *PollSet) Ready(ready []int32, n int) int {
	fds, tags := s.Fds, s.Tags
	k := 0
	if n <= 0 || len(ready) == 0 {
		return 0
	}
	for i, fd := range fds {
		if fd.Revents == 0 {
			continue
		}
		ready[k] = tags[i]
		k++
		n--
		if n == 0 || k == len(ready) {
			break
		}
	}
	return k
}

// SelectWait is implemented by a Mechanism whose Wait is one pselect6 on a
// SelectSet's read bitmap, with no signal mask, and nothing else.
// SelectSet returns that set, which the Mechanism keeps changing as
// descriptors are added and removed, or ok false when Wait does more
// than that call.
type SelectWait interface {
	SelectSet() (set *SelectSet, ok bool)
}

// SelectSet is a select interest set: a bitmap of the registered
// descriptors, the work bitmap handed to the kernel (which overwrites it)
// and the tag of each descriptor, by descriptor. Words are unsigned longs
// as the kernel reads them, which on 64-bit Linux is a []uint64 in
// memory. Nfds is the highest registered descriptor + 1.
type SelectSet struct {
	Interest, Work []uint64
	Tags           []int32
	Nfds           int
}

// Arm copies the interest bitmap into the work bitmap for a call, as far
// as Nfds reaches (the kernel clears the bitmap when the call times
// out), and returns the work bitmap's first word, nil when there is none:
// pselect6's second argument.
func (s *SelectSet) Arm() *uint64 {
	words := (s.Nfds + 63) / 64
	copy(s.Work[:words], s.Interest[:words])
	if words == 0 {
		return nil
	}
	return unsafe.SliceData(s.Work)
}

// Ready writes into ready the tags of the n descriptors a pselect6 on s
// found ready, in descriptor order, and returns how many (at most
// len(ready)).
func (s *SelectSet) Ready(ready []int32, n int) int {
	words, tags := s.Work[:(s.Nfds+63)/64], s.Tags
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
