package uring

import (
	"testing"
	"unsafe"
)

// TestABI checks the Go layouts against include/uapi/linux/io_uring.h:
// a wrong offset would make the kernel read another field.
func TestABI(t *testing.T) {
	var s sqe
	var c cqe
	var p params
	var a geteventsArg
	for _, x := range []struct {
		name      string
		got, want uintptr
	}{
		{"sizeof io_uring_sqe", unsafe.Sizeof(s), 64},
		{"sqe.fd", unsafe.Offsetof(s.fd), 4},
		{"sqe.off", unsafe.Offsetof(s.off), 8},
		{"sqe.addr", unsafe.Offsetof(s.addr), 16},
		{"sqe.len", unsafe.Offsetof(s.len), 24},
		{"sqe.poll32_events", unsafe.Offsetof(s.opFlags), 28},
		{"sqe.user_data", unsafe.Offsetof(s.userData), 32},
		{"sqe.buf_index", unsafe.Offsetof(s.bufIndex), 40},
		{"sqe.splice_fd_in", unsafe.Offsetof(s.spliceFDIn), 44},
		{"sqe.addr3", unsafe.Offsetof(s.addr3), 48},
		{"sizeof io_uring_cqe", unsafe.Sizeof(c), 16},
		{"cqe.res", unsafe.Offsetof(c.res), 8},
		{"cqe.flags", unsafe.Offsetof(c.flags), 12},
		{"sizeof io_uring_params", unsafe.Sizeof(p), 120},
		{"params.features", unsafe.Offsetof(p.features), 20},
		{"params.sq_off", unsafe.Offsetof(p.sqOff), 40},
		{"params.cq_off", unsafe.Offsetof(p.cqOff), 80},
		{"sizeof io_sqring_offsets", unsafe.Sizeof(p.sqOff), 40},
		{"sizeof io_cqring_offsets", unsafe.Sizeof(p.cqOff), 40},
		{"sizeof io_uring_getevents_arg", unsafe.Sizeof(a), 24},
		{"getevents_arg.min_wait_usec", unsafe.Offsetof(a.minWaitUsec), 12},
		{"getevents_arg.ts", unsafe.Offsetof(a.ts), 16},
		{"sizeof __kernel_timespec", unsafe.Sizeof(kernelTimespec{}), 16},
	} {
		if x.got != x.want {
			t.Errorf("%s = %d, want %d", x.name, x.got, x.want)
		}
	}
}
