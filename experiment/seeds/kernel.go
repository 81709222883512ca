package seeds

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// epiocgparams is EPIOCGPARAMS, _IOR(0x8A, 0x02, struct epoll_params) of
// Linux 6.9's uapi linux/eventpoll.h: the struct is 8 bytes (busy_poll_usecs
// u32, busy_poll_budget u16, prefer_busy_poll u8, a pad byte).
const epiocgparams = 2<<30 | 8<<16 | 0x8A<<8 | 0x02

// MinWaitHere says what this kernel offers of an epoll minimum wait (seed
// 002's patch), asked of the kernel itself: whether an epoll descriptor
// answers EPIOCGPARAMS, the one epoll parameter ioctl, which holds busy-poll
// settings and no minimum wait.
func MinWaitHere() string {
	fd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return fmt.Sprintf("could not ask this kernel about epoll parameters (epoll_create1: %v)", err)
	}
	defer unix.Close(fd)
	var p [8]byte
	_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), epiocgparams, uintptr(unsafe.Pointer(&p[0])))
	switch e {
	case 0:
		return "this kernel offers no epoll minimum wait: its one epoll parameter ioctl (EPIOCSPARAMS, answered here) sets busy polling of network sockets' NAPI queues, which pipes do not have"
	case unix.ENOTTY, unix.EINVAL:
		return fmt.Sprintf("this kernel offers no epoll minimum wait, nor the epoll parameter ioctl EPIOCSPARAMS (%v)", e)
	}
	return fmt.Sprintf("could not ask this kernel about epoll parameters (EPIOCGPARAMS: %v)", e)
}
