package uring

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// bufRing is a ring of provided buffers (IORING_REGISTER_PBUF_RING, Linux
// 5.19) from which the kernel picks a buffer for each multishot read: we
// put buffers in at the tail, the kernel takes them at the head and names
// the one it filled in the completion (its id, in the upper bits of the
// flags). Buffer i is data[i*size:(i+1)*size]. Both regions are anonymous
// mappings: the kernel writes into them, and the Go heap never moves or
// scans them.
type bufRing struct {
	mem   []byte // the mapping that holds ring
	ring  []buf  // the shared entries; the tail is in ring[0].resv
	data  []byte // the buffers themselves
	size  int    // bytes per buffer
	mask  uint16
	tail  uint16 // our copy of the tail, published by publish
	group uint16
}

// newBufRing maps entries buffers of size bytes (entries a power of two,
// at most 32768) and registers them with r as buffer group group.
func newBufRing(r *ring, entries, size int, group uint16) (*bufRing, error) {
	mem, err := unix.Mmap(-1, 0, entries*int(unsafe.Sizeof(buf{})), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE|unix.MAP_POPULATE)
	if err != nil {
		return nil, fmt.Errorf("mmap a ring of %d provided buffers: %w", entries, err)
	}
	data, err := unix.Mmap(-1, 0, entries*size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE|unix.MAP_POPULATE)
	if err != nil {
		unix.Munmap(mem)
		return nil, fmt.Errorf("mmap %d provided buffers of %d bytes: %w", entries, size, err)
	}
	b := &bufRing{
		mem: mem, ring: unsafe.Slice((*buf)(unsafe.Pointer(&mem[0])), entries),
		data: data, size: size, mask: uint16(entries - 1), group: group,
	}
	reg := bufReg{ringAddr: uint64(uintptr(unsafe.Pointer(&mem[0]))), ringEntries: uint32(entries), bgid: group}
	if e := r.register(registerPbufRing, unsafe.Pointer(&reg), 1); e != 0 {
		b.unmap()
		return nil, fmt.Errorf("io_uring_register a ring of %d provided buffers: %w", entries, e)
	}
	for i := range entries {
		b.put(uint16(i))
	}
	b.publish()
	return b, nil
}

// get is buffer id's first n bytes.
func (b *bufRing) get(id uint16, n int) []byte {
	off := int(id) * b.size
	return b.data[off : off+n : off+b.size]
}

// put gives buffer id back to the kernel once publish has run.
func (b *bufRing) put(id uint16) {
	e := &b.ring[b.tail&b.mask]
	e.addr = uint64(uintptr(unsafe.Pointer(&b.data[int(id)*b.size])))
	e.len = uint32(b.size)
	e.bid = id
	b.tail++
}

// publish stores the tail, after the entries put since the last publish.
// The tail is a 16-bit field sharing a 32-bit word with the first entry's
// id (little-endian: id low, tail high); we are the only writer of both,
// so one 32-bit release store publishes the tail with the id it already has.
func (b *bufRing) publish() {
	w := (*uint32)(unsafe.Pointer(&b.ring[0].bid))
	storeRelease(w, uint32(b.tail)<<16|uint32(b.ring[0].bid))
}

// unmap releases both mappings; the kernel lets go of the buffer ring when
// the io_uring is closed, which must come first.
func (b *bufRing) unmap() {
	if b.mem != nil {
		unix.Munmap(b.mem)
		b.mem, b.ring = nil, nil
	}
	if b.data != nil {
		unix.Munmap(b.data)
		b.data = nil
	}
}
