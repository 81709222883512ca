package uring

import (
	"fmt"

	"github.com/pipebench/pipebench/internal/waitcall"
)

// Registration states.
const (
	free     uint8 = iota // no registration under this tag
	armed                 // a request (a poll, a read) is queued or in the kernel
	disarmed              // added, or ended by the kernel: armed by the next Arm or wait
)

// reg is one registration, indexed by tag.
type reg struct {
	fd    int32
	gen   uint32 // tells this registration's completions from a removed one's; 0 when free
	state uint8
	// listed: the tag is in registry.rearm. It survives Remove and Add, so
	// that a tag is never listed twice and the list never outgrows its
	// capacity in a wait.
	listed bool
	// seen is the Wait call that last reported the tag (the poll backend):
	// a poll may post several completions before one Wait reaps them.
	seen uint64
}

// userData is a request's user data: gen<<32 | tag, with gen < 1<<30, so
// that the two top bits are free to mark other kinds of request.
func userData(tag int32, gen uint32) uint64 { return uint64(gen)<<32 | uint64(uint32(tag)) }

// registry is what both backends keep of their registrations: each tag's
// descriptor, generation and state, the tag of each descriptor, and the
// tags whose request the kernel ended, to arm again. Add only records a
// registration, armed later from the thread that will wait.
type registry struct {
	regs  []reg   // by tag
	byFD  []int32 // tag registered for each descriptor, or -1
	rearm []int32 // tags the kernel disarmed, to arm again
	gen   uint32
}

func newRegistry(pipes, maxFD int) registry {
	return registry{regs: make([]reg, pipes), byFD: waitcall.Grow[int32](nil, maxFD, -1), rearm: make([]int32, 0, pipes)}
}

// add records fd under tag, disarmed.
func (g *registry) add(fd int, tag int32) error {
	if fd < 0 || tag < 0 {
		return fmt.Errorf("io_uring add fd %d tag %d: negative", fd, tag)
	}
	g.byFD = waitcall.Grow(g.byFD, fd, -1)
	if t := g.byFD[fd]; t >= 0 {
		return fmt.Errorf("io_uring add fd %d: already registered with tag %d", fd, t)
	}
	g.regs = waitcall.Grow(g.regs, int(tag), reg{})
	if cap(g.rearm) < len(g.regs) {
		g.rearm = append(make([]int32, 0, len(g.regs)), g.rearm...)
	}
	r := &g.regs[tag]
	if r.state != free {
		return fmt.Errorf("io_uring add fd %d: tag %d already names fd %d", fd, tag, r.fd)
	}
	g.gen = g.gen%(1<<30-1) + 1
	r.fd, r.gen, r.seen = int32(fd), g.gen, 0
	g.disarm(tag) // armed by Arm or the next wait, on the waiting thread
	g.byFD[fd] = tag
	return nil
}

// lookup returns fd's registration under tag, for Remove.
func (g *registry) lookup(fd int, tag int32) (*reg, error) {
	if fd < 0 || fd >= len(g.byFD) || g.byFD[fd] < 0 {
		return nil, fmt.Errorf("io_uring remove fd %d: not registered", fd)
	}
	if t := g.byFD[fd]; t != tag {
		return nil, fmt.Errorf("io_uring remove fd %d: registered with tag %d, not %d", fd, t, tag)
	}
	return &g.regs[tag], nil
}

// forget frees tag's registration of fd. A disarmed tag stays listed; the
// re-arm skips it now that it is free. Completions still on their way
// carry the old generation and are dropped.
func (g *registry) forget(fd int, tag int32) {
	r := &g.regs[tag]
	r.state, r.gen = free, 0
	g.byFD[fd] = -1
}

// current returns the registration a request's user data names, if it is
// still the one that made the request and its request is armed.
func (g *registry) current(ud uint64) (int32, *reg, bool) {
	tag := int32(uint32(ud))
	if tag < 0 || int(tag) >= len(g.regs) {
		return tag, nil, false
	}
	r := &g.regs[tag]
	return tag, r, r.state == armed && r.gen == uint32(ud>>32)&(1<<30-1)
}

// disarm records that the kernel ended tag's request.
func (g *registry) disarm(tag int32) {
	r := &g.regs[tag]
	r.state = disarmed
	if !r.listed {
		r.listed = true
		g.rearm = append(g.rearm, tag)
	}
}

// armer queues the request that arms one registration.
type armer interface {
	arm(tag int32) error
}

// rearmAll has a queue a request for every listed tag still disarmed. It
// tries them all even after a failure, and returns the first.
func (g *registry) rearmAll(a armer) error {
	var first error
	for _, tag := range g.rearm {
		r := &g.regs[tag]
		r.listed = false
		if r.state != disarmed {
			continue
		}
		r.state = armed
		if err := a.arm(tag); err != nil && first == nil {
			r.state = disarmed
			first = fmt.Errorf("io_uring re-arm fd %d: %w", r.fd, err)
		}
	}
	g.rearm = g.rearm[:0]
	return first
}

// armAll queues a request for every registration not armed yet and
// submits them all from the calling thread, the one that will wait
// (pipebench.Armer): as the queue fills, and once more for the rest.
func (g *registry) armAll(r *ring, a armer) error {
	if err := g.rearmAll(a); err != nil {
		return err
	}
	if err := r.submit(0); err != nil {
		return fmt.Errorf("io_uring arm: %w", err)
	}
	return nil
}
