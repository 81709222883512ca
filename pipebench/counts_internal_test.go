package pipebench

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/internal/tokens"
)

// TestWorkerCountsFailedForward: a worker whose forward fails half-way
// still counts the read, its tokens and the writes that succeeded, so that
// the run's accounting shows no loss that did not happen.
func TestWorkerCountsFailedForward(t *testing.T) {
	wfds := make([]int32, 3)
	for i := range wfds {
		var p [2]int
		if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
			t.Fatal(err)
		}
		defer unix.Close(p[1])
		if i == 2 {
			unix.Close(p[0]) // a write to pipe 2 fails: EPIPE
		} else {
			defer unix.Close(p[0])
		}
		wfds[i] = int32(p[1])
	}
	d := &Surface{pipes: 3, self: true, wfds: wfds, credit: -1, route: RouteNext, ctr: &counters{}}
	w := d.Workers(1)[0]
	// Two tokens read from pipe 0 go to pipe 1, then pipe 2, which fails.
	if err := w.Got(0, []byte("tt")); err == nil {
		t.Fatal("a forward to a pipe without a reader succeeded")
	}
	got := d.ctr.snapshot()
	if got.Reads != 1 || got.Events != 1 || got.Tokens != 2 || got.Writes != 1 {
		t.Errorf("after a read of 2 tokens and 1 forward before a failure: %+v, want 1 read, 1 event, 2 tokens, 1 write", got)
	}
}

// TestDrainWaitsForTCP: bytes written to a loopback TCP connection may
// still be on their way at teardown; the drain waits for the tokens it
// expects rather than reporting them lost. A pipe's bytes are there once
// written: the drain of a pipe does not wait for tokens that are not.
func TestDrainWaitsForTCP(t *testing.T) {
	ch, err := newChannels(SourceTCP)
	if err != nil {
		t.Fatal(err)
	}
	defer ch.close()
	rfd, wfd, err := ch.open()
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(rfd)
	defer unix.Close(wfd)
	r := &run{cfg: Config{Workload: Workload{Source: SourceTCP}}, rfds: []int32{int32(rfd)}}
	go func() {
		time.Sleep(50 * time.Millisecond) // in flight when the drain starts
		unix.Write(wfd, []byte("tt"))
	}()
	if got, _, err := r.drain(2); got != 2 || err != nil {
		t.Errorf("drained %d tokens (%v) of 2 written as the drain began, want 2", got, err)
	}

	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	r = &run{cfg: Config{Workload: Workload{Source: SourcePipe}}, rfds: []int32{int32(p[0])}}
	start := time.Now()
	if got, _, err := r.drain(1); got != 0 || err != nil {
		t.Errorf("drained %d tokens (%v) from an empty pipe", got, err)
	}
	if d := time.Since(start); d > tcpSettle/2 {
		t.Errorf("the drain of an empty pipe waited %v", d)
	}
}

// TestWriterStopsAtWindowEnd: a writer stops on the stop flag alone, which
// the harness sets when the window closes: an unbounded writer at its next
// write, without waiting for the stop word; a bounded one woken by credits
// that arrive after the window writes no token for them.
func TestWriterStopsAtWindowEnd(t *testing.T) {
	for _, inFlight := range []int{4, 0} {
		t.Run(fmt.Sprintf("l=%d", inFlight), func(t *testing.T) {
			const pipes = 4
			wfds, rfds := make([]int32, pipes), make([]int32, pipes)
			for i := range pipes {
				var p [2]int
				if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
					t.Fatal(err)
				}
				defer unix.Close(p[0])
				defer unix.Close(p[1])
				rfds[i], wfds[i] = int32(p[0]), int32(p[1])
			}
			cr, cw, err := tokens.NewCreditPipe(false, inFlight)
			if err != nil {
				t.Fatal(err)
			}
			defer unix.Close(int(cr))
			defer unix.Close(int(cw))
			stop := new(atomic.Bool)
			w := &tokens.Writer{WFDs: wfds, Route: tokens.NewRouter(RouteRandom, 1, pipes), InFlight: inFlight, Credits: cr, Stop: stop}
			done := make(chan error, 1)
			go func() {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				done <- w.Run()
			}()
			time.Sleep(20 * time.Millisecond)
			stop.Store(true)
			if inFlight > 0 {
				var b [8]byte
				if err := tokens.SendCredit(cw, &b, 4); err != nil { // after the window: no token for them
					t.Fatal(err)
				}
			}
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the writer did not stop on the stop flag")
			}
			r := &run{cfg: Config{Workload: Workload{Source: SourcePipe}}, rfds: rfds}
			inPipes, _, err := r.drain(0)
			if err != nil {
				t.Fatal(err)
			}
			c := w.Counts
			if inPipes != c.Sent || c.Writes != c.Sent+c.Full {
				t.Errorf("%d tokens in the pipes, %d sent, %d writes, %d found a pipe full: want sent = in the pipes = writes - full", inPipes, c.Sent, c.Writes, c.Full)
			}
			// Its waits may end early with EINTR (the runtime's preemption
			// signal), each followed by a read.
			if inFlight > 0 && (c.Sent != uint64(inFlight) || c.Waits == 0 || c.Reads != c.Waits) {
				t.Errorf("bounded writer: %d sent, %d credit reads, %d waits; want its %d tokens, then a read after each wait", c.Sent, c.Reads, c.Waits, inFlight)
			}
		})
	}
}
