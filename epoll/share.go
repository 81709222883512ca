package epoll

import (
	"github.com/pipebench/pipebench/pipebench"
	"golang.org/x/sys/unix"
)

// Share returns another waiter on b's epoll instance (pipebench.Sharer):
// the same sets, nested or not, with an events buffer, one-shot
// bookkeeping and counters of its own, so that its Wait can run on another
// thread at the same time as b's. epoll_wait is safe to call from several
// threads on one set; the kernel queues them and wakes one per event (a
// level-triggered descriptor goes back on the ready list, so another
// waiter may be handed it too, and find it empty). Its chain holds no
// levels, so its Close releases nothing: the sets are b's.
func (b *backend) Share() (pipebench.Mechanism, error) {
	s := &backend{
		epfd:         b.epfd,
		top:          b.top,
		events:       make([]unix.EpollEvent, len(b.events)),
		addEvents:    b.addEvents,
		modEvents:    b.modEvents,
		oneShot:      b.oneShot,
		syscallSleep: b.syscallSleep,
	}
	if b.oneShot {
		s.disarmed = make([]bool, len(b.disarmed))
	}
	return s, nil
}
