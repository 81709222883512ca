package pipebenchtest

import (
	"fmt"
	"testing"

	"github.com/pipebench/pipebench/pipebench"
	"golang.org/x/sys/unix"
)

// BenchmarkPingPong measures a backend on the simplest workload, one token
// in flight in one goroutine: write a byte to a random pipe, Wait, read
// what is reported. It runs over 10 and 1000 registered pipes and reports
// ns/event, an event being one reported and read pipe. A backend package
// calls it from its own benchmark:
//
//	func BenchmarkPoll(b *testing.B) { pipebenchtest.BenchmarkPingPong(b, poll.Factory) }
func BenchmarkPingPong(b *testing.B, f pipebench.Factory) {
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprintf("pipes=%d", n), func(b *testing.B) { pingPong(b, f, n) })
	}
}

func pingPong(b *testing.B, f pipebench.Factory, n int) {
	needDescriptors(b, 2*n+100)
	pipes := makePipes(b, n)
	maxFD := 0
	for _, p := range pipes {
		maxFD = max(maxFD, p.r)
	}
	be, err := f.Open(pipebench.Options{Pipes: n, MaxFD: maxFD})
	SkipIfRefused(b, err)
	if err != nil {
		b.Fatalf("%s: open: %v", f.Name, err)
	}
	defer be.Close()
	for i, p := range pipes {
		if err := be.Add(p.r, int32(i)); err != nil {
			b.Fatalf("add fd %d: %v", p.r, err)
		}
	}
	ready := make([]int32, n)
	var buf [1024]byte
	x := uint32(2463534242) // xorshift32, as the harness picks the next pipe
	events := 0
	for b.Loop() {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		if _, err := unix.Write(pipes[x%uint32(n)].w, token); err != nil {
			b.Fatalf("write: %v", err)
		}
		k, err := be.Wait(ready, -1)
		if err != nil {
			b.Fatalf("wait: %v", err)
		}
		for _, tag := range ready[:k] {
			if _, err := unix.Read(pipes[tag].r, buf[:]); err != nil {
				b.Fatalf("read: %v", err)
			}
		}
		events += k
	}
	if events > 0 {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
	}
}
