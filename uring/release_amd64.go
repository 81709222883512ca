package uring

// storeRelease stores v at p, a word of a ring the kernel reads (a head or
// a tail), after every load and store this thread made before it: the
// kernel's smp_load_acquire of the word must see them done. On amd64 a
// plain store is such a store: the processor keeps stores in order with
// the loads and stores before them, and the compiler keeps every memory
// operation in its program order at the store. sync/atomic's store is
// sequentially consistent, an XCHG here, which costs a locked round trip
// a call (docs/speed.md); liburing's io_uring_smp_store_release is this
// same plain store on x86.
func storeRelease(p *uint32, v uint32) { *p = v }
