package gonet

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/internal/fdlimit"
	"github.com/pipebench/pipebench/pipebench"
)

// BenchmarkGonet is gonet's counterpart of pipebenchtest.BenchmarkPingPong,
// which needs a Wait: one token in flight over 10 and 1000 pipes, each
// watched by its goroutine, which reads the token and writes it to a
// random pipe (xorshift), waking that pipe's goroutine through the
// netpoller. It reports ns/event, an event being one read that found the
// token.
func BenchmarkGonet(b *testing.B) {
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprintf("pipes=%d", n), func(b *testing.B) { pingPong(b, n) })
	}
}

// relay is a benchmark's sink: it forwards each token and counts events
// until the target.
type relay struct {
	wfds   []int
	x      uint32
	events *atomic.Int64
	target int64
	done   chan struct{}
	parked *atomic.Int64 // goroutines that have parked once
	once   bool
}

func (r *relay) Got(pipe int, b []byte) error {
	for range b {
		r.x ^= r.x << 13
		r.x ^= r.x >> 17
		r.x ^= r.x << 5
		if _, err := unix.Write(r.wfds[r.x%uint32(len(r.wfds))], b[:1]); err != nil {
			return err
		}
	}
	if r.events.Add(1) == r.target {
		close(r.done)
	}
	return nil
}

func (r *relay) Missed(bool) {
	if !r.once {
		r.once = true
		r.parked.Add(1)
	}
}

func pingPong(b *testing.B, n int) {
	if _, err := fdlimit.RaiseFileLimit(); err != nil {
		b.Fatal(err)
	}
	be, err := open(pipebench.Options{Pipes: n, MaxFD: 3*n + 100})
	if err != nil {
		b.Fatal(err)
	}
	g := be.(*backend)
	defer g.Close()
	wfds := make([]int, n)
	for i := range wfds {
		var p [2]int
		if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
			b.Fatal(err)
		}
		defer unix.Close(p[0])
		defer unix.Close(p[1])
		wfds[i] = p[1]
		if err := g.Add(p[0], int32(i)); err != nil {
			b.Fatal(err)
		}
	}
	var events, parked atomic.Int64
	done := make(chan struct{})
	sinks := make([]sink, n)
	for i := range sinks {
		sinks[i] = &relay{wfds: wfds, x: 2463534242 + uint32(i), events: &events, target: int64(b.N), done: done, parked: &parked}
	}
	served := make(chan error, 1)
	go func() { served <- g.serveAll(sinks, done) }()
	for parked.Load() < int64(n) {
		time.Sleep(time.Millisecond)
	}
	b.ResetTimer()
	if _, err := unix.Write(wfds[0], []byte{'t'}); err != nil {
		b.Fatal(err)
	}
	<-done
	b.StopTimer()
	if err := <-served; err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/event")
}
