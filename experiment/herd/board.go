package herd

import (
	"fmt"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/internal/osthread"
)

// The board is shared memory (a memfd mapped by the measuring process and by
// every waiter process) holding one slot of counters per waiter. A waiter
// adds to its slot once per epoll_wait, never per read; the measuring
// process reads the slots at every interval. Threads use the same board, so
// there is one way of counting.
const (
	fReady         = iota // 1 once the waiter's epoll set is complete
	fDone                 // 1 once the waiter has stopped and stored its usage
	fID                   // the waiter's thread (threads) or process ID
	fWaits                // epoll_wait calls
	fReturns              // waits that returned with a pipe reported ready
	fTimeouts             // waits that returned nothing
	fEvents               // reads that got tokens
	fTokens               // bytes those reads carried
	fWastedReads          // reads of a reported pipe that found it empty
	fWastedReturns        // returns whose reads all found nothing
	fCredits              // credit words written back to the writer
	fUser                 // the waiter thread's user CPU, ns, at the end
	fSystem               // its system CPU, ns
	fVoluntary            // its voluntary context switches
	fInvoluntary          // its involuntary context switches
	slotWords      = 16   // 128 bytes: two cache lines, no false sharing
)

type slot [slotWords]uint64

func (s *slot) add(f int, v uint64)   { atomic.AddUint64(&s[f], v) }
func (s *slot) store(f int, v uint64) { atomic.StoreUint64(&s[f], v) }
func (s *slot) load(f int) uint64     { return atomic.LoadUint64(&s[f]) }
func (s *slot) storeUsage(u osthread.Usage) {
	s.store(fUser, uint64(u.User))
	s.store(fSystem, uint64(u.System))
	s.store(fVoluntary, uint64(u.Voluntary))
	s.store(fInvoluntary, uint64(u.Involuntary))
}

func (s *slot) usage() osthread.Usage {
	return osthread.Usage{
		User:        time.Duration(s.load(fUser)),
		System:      time.Duration(s.load(fSystem)),
		Voluntary:   int64(s.load(fVoluntary)),
		Involuntary: int64(s.load(fInvoluntary)),
	}
}

func (s *slot) counts() Counts {
	return Counts{
		Waits: s.load(fWaits), Returns: s.load(fReturns), Timeouts: s.load(fTimeouts),
		Events: s.load(fEvents), Tokens: s.load(fTokens),
		WastedReads: s.load(fWastedReads), WastedReturns: s.load(fWastedReturns),
		Credits: s.load(fCredits),
	}
}

type board struct {
	fd    int
	mem   []byte
	slots []slot
}

// newBoard makes a zeroed board of k slots.
func newBoard(k int) (*board, error) {
	fd, err := unix.MemfdCreate("pipebench-herd", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("memfd_create for the counters board: %w", err)
	}
	if err := unix.Ftruncate(fd, int64(k*int(unsafe.Sizeof(slot{})))); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("size the counters board: %w", err)
	}
	b, err := mapBoard(fd, k)
	if err != nil {
		unix.Close(fd)
		return nil, err
	}
	return b, nil
}

// mapBoard maps the board in fd, made by newBoard for k slots.
func mapBoard(fd, k int) (*board, error) {
	size := k * int(unsafe.Sizeof(slot{}))
	mem, err := unix.Mmap(fd, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("map the counters board (%d bytes): %w", size, err)
	}
	// The mapping is page-aligned, so every word is aligned for atomics.
	return &board{fd: fd, mem: mem, slots: unsafe.Slice((*slot)(unsafe.Pointer(&mem[0])), k)}, nil
}

func (b *board) close() {
	b.slots = nil
	_ = unix.Munmap(b.mem)
	unix.Close(b.fd)
}

// sum adds up the counts of every slot.
func (b *board) sum() Counts {
	var c Counts
	for i := range b.slots {
		c = c.Add(b.slots[i].counts())
	}
	return c
}

// all reports whether field f is set in every slot.
func (b *board) all(f int) bool {
	for i := range b.slots {
		if b.slots[i].load(f) == 0 {
			return false
		}
	}
	return true
}
