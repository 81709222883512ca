package epoll

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// disarmedBy records that the kernel disarmed every descriptor in events
// (the events one Wait reported), for rearm to undo at the next Wait.
func (b *backend) disarmedBy(events []unix.EpollEvent) {
	for _, ev := range events {
		b.disarmed[ev.Pad] = true
	}
	b.reported = len(events)
}

// rearm re-arms, with one EPOLL_CTL_MOD each, the descriptors the last Wait
// reported, skipping those removed since. By now the caller has read them:
// re-arming earlier would report data it was about to read. It tries every
// descriptor even after a failure, so that one bad descriptor (closed
// without Remove) does not leave the others disarmed, and returns the first
// error.
func (b *backend) rearm() error {
	var first error
	for i := range b.events[:b.reported] {
		ev := &b.events[i]
		fd := int(ev.Pad)
		if !b.disarmed[fd] {
			continue
		}
		b.disarmed[fd] = false
		ev.Events = b.modEvents
		if err := b.ctlCall(unix.EPOLL_CTL_MOD, fd, ev); err != nil && first == nil {
			first = fmt.Errorf("epoll_ctl mod fd %d (one-shot re-arm): %w", fd, err)
		}
	}
	b.reported = 0
	return first
}
