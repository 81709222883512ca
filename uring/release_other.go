//go:build !amd64

package uring

import "sync/atomic"

// storeRelease stores v at p, a word of a ring the kernel reads, after
// every load and store this thread made before it. sync/atomic's store is
// at least a release store on every architecture Go supports.
func storeRelease(p *uint32, v uint32) { atomic.StoreUint32(p, v) }
