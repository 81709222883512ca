package uring

import (
	"errors"
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/pipebench/pipebench/pipebench"
)

// Kinds of request of the rw backend, in the two top bits of the user data
// (a read's is userData(tag, gen), whose top bits are clear).
const (
	kindShift  = 62
	kindRead   = 0
	kindWrite  = 1 // the low bits are the write's slot
	kindCancel = 2 // an ASYNC_CANCEL's own answer
)

// readSize is the most one read takes, as the harness's reader takes: one
// event can carry several tokens.
const readSize = 1024

// rwBackend moves the tokens with io_uring itself: a read request per pipe
// (a multishot read into the buffers of a registered buffer ring, or a
// plain read into the pipe's own buffer, armed again after each
// completion) and a write request per forwarded token or credit word,
// queued and handed to the kernel together, in the io_uring_enter that
// waits for the next completions. It is a pipebench.Loop that reads on
// the reader thread: the harness arms it there (Arm) and calls Run there.
type rwBackend struct {
	ring     *ring
	multi    bool
	settings Settings
	files    fixedFiles
	bufs     *bufRing // multishot: the buffers the kernel reads into
	// own are the plain reads' buffers, readSize bytes each, by tag; one
	// never moves once a read may be in the kernel with its address (a
	// tag added past Options.Pipes gets a buffer of its own).
	own [][]byte
	registry
	ctl atomic.Uint64

	// Writes in flight: each holds its bytes in a slot until its
	// completion (the kernel may copy them only when the pipe has room).
	slots  [][8]byte
	lens   []uint8
	dest   []int32 // the pipe a slot's write goes to, -1 for the credit pipe
	inUse  []bool
	free   []uint32
	queued uint32 // writes queued since the last io_uring_enter that waited
	cbuf   [8]byte
	// closing: the run is over (finish), tokens read are not sent on.
	closing bool
}

// maxWrites is how many writes can be in flight at once: a token in a
// queued write is not in any pipe, so self mode has at most
// pipebench.MaxInFlight, and a writer's credit words carry at least one
// token each, so as many again.
const maxWrites = 2 * pipebench.MaxInFlight

// noMultishotRead refuses uring-rw on a kernel without multishot reads,
// naming the variant that does without.
func noMultishotRead(release string) error {
	return fmt.Errorf("multishot read (IORING_OP_READ_MULTISHOT with a registered buffer ring) needs Linux 6.7, this is %s: use -b uring-rw-oneshot, which re-arms plain reads (%w)",
		release, errors.ErrUnsupported)
}

// errNoRead refuses kernels without IORING_OP_READ and IORING_OP_WRITE.
var errNoRead = fmt.Errorf("io_uring on this kernel lacks IORING_OP_READ and IORING_OP_WRITE (Linux 5.6) (%w)", errors.ErrUnsupported)

// rwOpener returns the Open function of a variant: multishot reads or
// plain ones, the submission queue consumed by a kernel thread (sqpoll)
// or by io_uring_enter, with settings s.
func rwOpener(multi, sqpoll bool, s Settings) func(pipebench.Options) (pipebench.Loop, error) {
	return func(o pipebench.Options) (pipebench.Loop, error) { return openRW(o, multi, sqpoll, s) }
}

func openRW(o pipebench.Options, multi, sqpoll bool, s Settings) (pipebench.Loop, error) {
	if o.Pipes < 0 || o.MaxFD < 0 {
		return nil, fmt.Errorf("io_uring: negative size in options (pipes %d, max fd %d)", o.Pipes, o.MaxFD)
	}
	sq := uint32(min(max(o.Pipes, minSQ), maxSQ))
	cq := uint32(min(4*int(sq), maxCQ))
	r, err := newRing(sq, cq, sqpoll, s)
	if err != nil {
		return nil, err
	}
	b := &rwBackend{ring: r, multi: multi, settings: s, registry: newRegistry(o.Pipes, o.MaxFD)}
	if err := b.check(); err != nil {
		r.close()
		return nil, err
	}
	if multi {
		n := 64
		for n < min(max(o.Pipes, 64), 4096) {
			n *= 2
		}
		if b.bufs, err = newBufRing(r, n, readSize, 0); err != nil {
			r.close()
			return nil, err
		}
	} else {
		block := make([]byte, o.Pipes*readSize)
		b.own = make([][]byte, o.Pipes)
		for i := range b.own {
			b.own[i] = block[i*readSize : (i+1)*readSize : (i+1)*readSize]
		}
	}
	return b, nil
}

// check refuses, before any pipe is made, a kernel that lacks what the
// variant needs, naming the feature and the release that has it.
func (b *rwBackend) check() error {
	if b.ring.features&featExtArg == 0 {
		return errNoExtArg
	}
	if ok, err := b.ring.supports(opWrite); err != nil {
		return err
	} else if !ok {
		return errNoRead
	}
	if b.multi {
		if ok, err := b.ring.supports(opReadMultishot); err != nil {
			return err
		} else if !ok {
			return noMultishotRead(kernelRelease())
		}
	}
	return nil
}

func (b *rwBackend) Add(fd int, tag int32) error {
	if err := b.add(fd, tag); err != nil {
		return err
	}
	for !b.multi && len(b.own) < len(b.regs) {
		b.own = append(b.own, make([]byte, readSize))
	}
	return nil
}

// Remove forgets a registration; a read armed in the kernel (after Arm) is
// cancelled with the next io_uring_enter.
func (b *rwBackend) Remove(fd int, tag int32) error {
	r, err := b.lookup(fd, tag)
	if err != nil {
		return err
	}
	if r.state == armed {
		if err := b.cancel(userData(tag, r.gen)); err != nil {
			return fmt.Errorf("io_uring remove fd %d: %w", fd, err)
		}
	}
	if err := b.files.drop(b.ring, int32(fd)); err != nil {
		return fmt.Errorf("io_uring remove fd %d: %w", fd, err)
	}
	b.forget(fd, tag)
	return nil
}

// Arm queues a read for every registration and submits them all from the
// calling thread, the reader thread (pipebench.Armer). With Defer it first
// enables the ring, which makes this thread its one issuer; with Fixed it
// registers the read ends as the ring's files.
func (b *rwBackend) Arm() error {
	if err := armSettings(b.ring, &b.files, &b.registry, b.settings); err != nil {
		return err
	}
	return b.armAll(b.ring, b)
}

// arm queues tag's read: multishot into the buffer ring, or a plain read
// into the tag's own buffer.
func (b *rwBackend) arm(tag int32) error {
	r := &b.regs[tag]
	fd, fixed, err := b.files.use(b.ring, r.fd)
	if err != nil {
		return err
	}
	s, err := b.ring.slot()
	if err != nil {
		return err
	}
	s.fd, s.flags, s.off, s.userData = fd, fixed, ^uint64(0), userData(tag, r.gen) // offset -1: the pipe's own position
	if b.multi {
		s.opcode, s.flags, s.bufIndex = opReadMultishot, s.flags|sqeBufferSelect, b.bufs.group
	} else {
		s.opcode, s.addr, s.len = opRead, uint64(uintptr(unsafe.Pointer(&b.own[tag][0]))), readSize
	}
	b.ring.push()
	b.ctl.Add(1)
	return nil
}

// cancel queues an ASYNC_CANCEL of the request with user data ud.
func (b *rwBackend) cancel(ud uint64) error {
	s, err := b.ring.slot()
	if err != nil {
		return err
	}
	s.opcode, s.fd, s.addr, s.userData = opCancel, -1, ud, kindCancel<<kindShift
	b.ring.push()
	b.ctl.Add(1)
	return nil
}

// CtlCalls counts the read requests armed and cancelled and the registered
// file slots set: entries queued for io_uring_enter, not system calls
// (pipebench.RingQueued).
func (b *rwBackend) CtlCalls() uint64 { return b.ctl.Load() + b.files.updates.Load() }

// Close closes the ring, which cancels whatever is still armed, then
// unmaps the buffers the kernel read into.
func (b *rwBackend) Close() error {
	err := b.ring.close()
	if b.bufs != nil {
		b.bufs.unmap()
	}
	return err
}

var (
	_ pipebench.Loop  = (*rwBackend)(nil)
	_ pipebench.Armer = (*rwBackend)(nil)
)

// KernelThread names the SQPOLL thread (pipebench.KernelThread): the
// ring's fdinfo says which thread it is (SqThread, -1 while there is none).
func (b *rwBackend) KernelThread() (int, string) {
	if !b.ring.sqpoll {
		return 0, ""
	}
	return b.ring.sqThread(), "sq thread"
}

var _ pipebench.KernelThread = (*rwBackend)(nil)
