package pipebench

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// sharedFlag is a stop flag in memory shared with the writer process (a
// memfd both map), so that the writer sees the window close by loading a
// word before every write, as a writer thread loads the run's own flag,
// without a system call.
type sharedFlag struct {
	mem  []byte
	flag *atomic.Bool
}

// newSharedFlag makes a cleared flag and returns it with the memfd that
// holds it, for the writer process to map; the caller closes fd once sent.
func newSharedFlag() (f *sharedFlag, fd int, err error) {
	fd, err = unix.MemfdCreate("pipebench-stop", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, -1, fmt.Errorf("memfd_create for the writer's stop flag: %w", err)
	}
	if err := unix.Ftruncate(fd, 8); err != nil {
		unix.Close(fd)
		return nil, -1, fmt.Errorf("size the writer's stop flag: %w", err)
	}
	if f, err = mapSharedFlag(fd); err != nil {
		unix.Close(fd)
		return nil, -1, err
	}
	return f, fd, nil
}

// mapSharedFlag maps the flag in fd, made by newSharedFlag; fd may be
// closed afterwards.
func mapSharedFlag(fd int) (*sharedFlag, error) {
	mem, err := unix.Mmap(fd, 0, 8, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("map the writer's stop flag: %w", err)
	}
	// The mapping is page-aligned: the word is aligned for atomics.
	return &sharedFlag{mem: mem, flag: (*atomic.Bool)(unsafe.Pointer(&mem[0]))}, nil
}

func (f *sharedFlag) unmap() {
	if f != nil && f.mem != nil {
		f.flag = nil
		_ = unix.Munmap(f.mem)
		f.mem = nil
	}
}
