package uring

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// maxFixed bounds the registered file table: the kernel's limit before
// 5.15 (IORING_MAX_FIXED_FILES, 1<<15), and never more than RLIMIT_NOFILE,
// which the kernel also holds it to. A descriptor past it is named as a
// descriptor, without IOSQE_FIXED_FILE.
const maxFixed = 1 << 15

// kindFiles marks the user data of an IORING_OP_FILES_UPDATE (the two top
// bits set), whose completion says only whether the slot was set.
const kindFiles = 3

// fixedFiles is a ring's registered file table (Fixed), indexed by
// descriptor number, so that a request on descriptor fd names slot fd: no
// descriptor lookup per request. It is registered once with the
// registrations known then (register, before any request); a descriptor
// seen later (a write end, a pipe added after Arm) gets its slot from an
// IORING_OP_FILES_UPDATE queued just before its request and linked to it,
// so that it costs no system call of its own; a removed one's slot is
// emptied the same way, since its number may come back as another file.
type fixedFiles struct {
	on bool
	// slot[i] is i while slot i holds descriptor i, -1 while it is empty;
	// the kernel reads an update's descriptor from here, so the array never
	// moves.
	slot    []int32
	empty   int32         // -1, the descriptor an emptying update reads
	updates atomic.Uint64 // updates queued, counted with the backend's CtlCalls
}

// register registers a table of min(RLIMIT_NOFILE, maxFixed) slots, with
// fds in theirs and the rest empty.
func (x *fixedFiles) register(r *ring, fds []int32) error {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		return fmt.Errorf("io_uring registered files: getrlimit: %w", err)
	}
	n := int(min(lim.Cur, maxFixed))
	x.slot = make([]int32, n)
	for i := range x.slot {
		x.slot[i] = -1
	}
	for _, fd := range fds {
		if fd >= 0 && int(fd) < n {
			x.slot[fd] = fd
		}
	}
	x.empty = -1
	if e := r.register(registerFiles, unsafe.Pointer(&x.slot[0]), uintptr(n)); e != 0 {
		return &errKernel{settingOf(Fixed), fmt.Errorf("io_uring_register %d files: %w", n, e)}
	}
	x.on = true
	return nil
}

// use readies a request on fd: it returns the entry's fd field and flags,
// having filled, if fd has no slot yet, the update that gives it one,
// linked to the request and published with it by the request's push. The
// caller's next entry must be that request. Without a table it returns fd
// itself.
func (x *fixedFiles) use(r *ring, fd int32) (int32, uint8, error) {
	if !x.on || fd < 0 || int(fd) >= len(x.slot) {
		return fd, 0, nil
	}
	if x.slot[fd] != fd {
		x.slot[fd] = fd
		if err := x.update(r, fd, &x.slot[fd], sqeIOLink); err != nil {
			return 0, 0, err
		}
		r.hold() // published with the request it is linked to
	}
	return fd, sqeFixedFile, nil
}

// drop empties fd's slot, once no request of the caller's uses it.
func (x *fixedFiles) drop(r *ring, fd int32) error {
	if !x.on || fd < 0 || int(fd) >= len(x.slot) || x.slot[fd] != fd {
		return nil
	}
	x.slot[fd] = -1
	return x.update(r, fd, &x.empty, 0)
}

// update queues an IORING_OP_FILES_UPDATE of slot fd to the descriptor at
// v.
func (x *fixedFiles) update(r *ring, fd int32, v *int32, flags uint8) error {
	s, err := r.slot()
	if err != nil {
		return err
	}
	s.opcode, s.flags, s.fd, s.off = opFilesUpdate, flags, -1, uint64(fd)
	s.addr, s.len, s.userData = uint64(uintptr(unsafe.Pointer(v))), 1, kindFiles<<kindShift|uint64(uint32(fd))
	if flags&sqeIOLink == 0 {
		r.push()
	}
	x.updates.Add(1)
	return nil
}

// updated checks an update's completion: it set one slot, or failed,
// which ends the run (the request linked to it was cancelled).
func updated(c *cqe) error {
	if c.res == 1 {
		return nil
	}
	fd := int32(uint32(c.userData))
	if c.res < 0 {
		return fmt.Errorf("io_uring registered file slot %d: %w", fd, unix.Errno(-c.res))
	}
	return fmt.Errorf("io_uring registered file slot %d: %d slots updated, want 1", fd, c.res)
}

// armSettings does what the settings need from the thread that will wait,
// before its first request: with Defer it enables the ring, which makes
// that thread its one issuer; with Fixed it registers the descriptors
// registered so far as the ring's files. Each is done once.
func armSettings(r *ring, x *fixedFiles, g *registry, s Settings) error {
	if s&Defer != 0 && !r.enabled {
		if err := r.enable(); err != nil {
			return err
		}
		r.enabled = true
	}
	if s&Fixed != 0 && !x.on {
		fds := make([]int32, 0, len(g.regs))
		for _, reg := range g.regs {
			if reg.state != free {
				fds = append(fds, reg.fd)
			}
		}
		return x.register(r, fds)
	}
	return nil
}

// settled says whether armSettings has nothing left to do: a check small
// enough to inline, so that a Wait that finds its completions in the CQ
// ring calls nothing to learn it (backend.Wait).
func settled(r *ring, x *fixedFiles, s Settings) bool {
	return (s&Defer == 0 || r.enabled) && (s&Fixed == 0 || x.on)
}
