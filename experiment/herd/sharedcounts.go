package herd

import (
	"fmt"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/internal/osthread"
)

// The shared counts are shared memory (a memfd mapped by the measuring
// process and by every waiter process) holding one row of counters per
// waiter (waiterCounts). A waiter adds to its row once per epoll_wait, never
// per read; the measuring process reads the rows at every interval. Threads
// use the same shared counts, so there is one way of counting.
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
	rowWords       = 16   // 128 bytes: two cache lines, no false sharing
)

type waiterCounts [rowWords]uint64

func (s *waiterCounts) add(f int, v uint64)   { atomic.AddUint64(&s[f], v) }
func (s *waiterCounts) store(f int, v uint64) { atomic.StoreUint64(&s[f], v) }
func (s *waiterCounts) load(f int) uint64     { return atomic.LoadUint64(&s[f]) }
func (s *waiterCounts) storeUsage(u osthread.Usage) {
	s.store(fUser, uint64(u.User))
	s.store(fSystem, uint64(u.System))
	s.store(fVoluntary, uint64(u.Voluntary))
	s.store(fInvoluntary, uint64(u.Involuntary))
}

func (s *waiterCounts) usage() osthread.Usage {
	return osthread.Usage{
		User:        time.Duration(s.load(fUser)),
		System:      time.Duration(s.load(fSystem)),
		Voluntary:   int64(s.load(fVoluntary)),
		Involuntary: int64(s.load(fInvoluntary)),
	}
}

func (s *waiterCounts) counts() Counts {
	return Counts{
		Waits: s.load(fWaits), Returns: s.load(fReturns), Timeouts: s.load(fTimeouts),
		Events: s.load(fEvents), Tokens: s.load(fTokens),
		WastedReads: s.load(fWastedReads), WastedReturns: s.load(fWastedReturns),
		Credits: s.load(fCredits),
	}
}

type sharedCounts struct {
	fd      int
	mem     []byte
	waiters []waiterCounts
}

// newSharedCounts makes zeroed shared counts for k waiters.
func newSharedCounts(k int) (*sharedCounts, error) {
	fd, err := unix.MemfdCreate("pipebench-herd", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("memfd_create for the shared counts: %w", err)
	}
	if err := unix.Ftruncate(fd, int64(k*int(unsafe.Sizeof(waiterCounts{})))); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("size the shared counts: %w", err)
	}
	b, err := mapSharedCounts(fd, k)
	if err != nil {
		unix.Close(fd)
		return nil, err
	}
	return b, nil
}

// mapSharedCounts maps the shared counts in fd, made by newSharedCounts for k waiters.
func mapSharedCounts(fd, k int) (*sharedCounts, error) {
	size := k * int(unsafe.Sizeof(waiterCounts{}))
	mem, err := unix.Mmap(fd, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("map the shared counts (%d bytes): %w", size, err)
	}
	// The mapping is page-aligned, so every word is aligned for atomics.
	return &sharedCounts{fd: fd, mem: mem, waiters: unsafe.Slice((*waiterCounts)(unsafe.Pointer(&mem[0])), k)}, nil
}

func (b *sharedCounts) close() {
	b.waiters = nil
	_ = unix.Munmap(b.mem)
	unix.Close(b.fd)
}

// sum adds up the counts of every waiter.
func (b *sharedCounts) sum() Counts {
	var c Counts
	for i := range b.waiters {
		c = c.Add(b.waiters[i].counts())
	}
	return c
}

// all reports whether field f is set in every waiter's row.
func (b *sharedCounts) all(f int) bool {
	for i := range b.waiters {
		if b.waiters[i].load(f) == 0 {
			return false
		}
	}
	return true
}
