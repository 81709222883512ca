package uring

import "sync/atomic"

// storeRelease stores v at p, a word of a ring the kernel reads (a head
// or a tail), after every load and store this thread made before it: the
// kernel's smp_load_acquire of the word must see them done. It is
// sync/atomic's store, the one the language defines (the Go memory model:
// its atomic operations are sequentially consistent, so this store is at
// least a release), on every architecture, rather than a plain store
// that keeps that order only by what the gc compiler and amd64 happen to
// do today. On amd64 it is an XCHG, a locked instruction, where
// liburing's io_uring_smp_store_release is a plain MOV: the one locked
// instruction TestHotPathLocksNothing allows in the hot path.
func storeRelease(p *uint32, v uint32) { atomic.StoreUint32(p, v) }
