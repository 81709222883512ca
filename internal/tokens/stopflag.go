package tokens

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// SharedFlag is a stop flag in memory shared with the writer process (a
// memfd both map), so that the writer sees the window close by loading a
// word before every write, as a writer thread loads the run's own flag,
// without a system call.
type SharedFlag struct {
	mem  []byte
	Flag *atomic.Bool
}

// NewSharedFlag makes a cleared flag and returns it with the memfd that
// holds it, for the writer process to map; the caller closes fd once sent.
func NewSharedFlag() (f *SharedFlag, fd int, err error) {
	fd, err = unix.MemfdCreate("pipebench-stop", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, -1, fmt.Errorf("memfd_create for the writer's stop flag: %w", err)
	}
	if err := unix.Ftruncate(fd, 8); err != nil {
		unix.Close(fd)
		return nil, -1, fmt.Errorf("size the writer's stop flag: %w", err)
	}
	if f, err = MapSharedFlag(fd); err != nil {
		unix.Close(fd)
		return nil, -1, err
	}
	return f, fd, nil
}

// MapSharedFlag maps the flag in fd, made by NewSharedFlag; fd may be
// closed afterwards.
func MapSharedFlag(fd int) (*SharedFlag, error) {
	mem, err := unix.Mmap(fd, 0, 8, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("map the writer's stop flag: %w", err)
	}
	// The mapping is page-aligned: the word is aligned for atomics.
	return &SharedFlag{mem: mem, Flag: (*atomic.Bool)(unsafe.Pointer(&mem[0]))}, nil
}

// Unmap releases the mapping; a nil or unmapped flag does nothing.
func (f *SharedFlag) Unmap() {
	if f != nil && f.mem != nil {
		f.Flag = nil
		_ = unix.Munmap(f.mem)
		f.mem = nil
	}
}
