package uring

import (
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/pipebench"
)

// TestArmPastQueueSize: Add hands nothing to the kernel (no io_uring_enter,
// nothing queued), so that no poll is submitted by the thread that sets up;
// Arm, on the thread that will wait, submits every registration, as the
// 64-entry submission queue fills and once more for the rest; then every
// pipe is reported, with no further interest change for multishot polls.
func TestArmPastQueueSize(t *testing.T) {
	for _, multi := range []bool{true, false} {
		t.Run(map[bool]string{true: "multishot", false: "oneshot"}[multi], func(t *testing.T) {
			runtime.LockOSThread() // completions are posted by the submitting thread
			defer runtime.UnlockOSThread()
			const pipes = 150 // past the 64 entries of Options.Pipes 1
			be, err := openOrSkip(t, pipebench.Options{Pipes: 1, MaxFD: 64}, multi)
			if err != nil {
				t.Fatal(err)
			}
			defer be.Close()
			b := be.(*backend)
			if b.ring.sqEntries != 64 {
				t.Fatalf("submission queue of %d entries, want 64", b.ring.sqEntries)
			}
			wfds := make([]int, pipes)
			for i := range pipes {
				var p [2]int
				if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
					t.Fatal(err)
				}
				defer unix.Close(p[0])
				defer unix.Close(p[1])
				wfds[i] = p[1]
				if err := b.Add(p[0], int32(i)); err != nil {
					t.Fatal(err)
				}
			}
			if b.WaitSyscalls() != 0 || b.ring.pending() != 0 || b.CtlCalls() != 0 {
				t.Fatalf("after %d Adds: %d io_uring_enter calls, %d entries queued, %d interest changes; want none",
					pipes, b.WaitSyscalls(), b.ring.pending(), b.CtlCalls())
			}
			if err := b.Arm(); err != nil {
				t.Fatal(err)
			}
			if got, want := b.WaitSyscalls(), uint64((pipes+63)/64); got != want {
				t.Errorf("Arm made %d io_uring_enter calls for %d polls through a 64-entry queue, want %d", got, pipes, want)
			}
			if b.ring.pending() != 0 || b.CtlCalls() != pipes {
				t.Errorf("after Arm: %d entries still queued, %d interest changes; want 0 and %d", b.ring.pending(), b.CtlCalls(), pipes)
			}
			for _, w := range wfds {
				if _, err := unix.Write(w, []byte{1}); err != nil {
					t.Fatal(err)
				}
			}
			seen := map[int32]bool{}
			ready := make([]int32, pipes)
			deadline := time.Now().Add(5 * time.Second)
			for len(seen) < pipes && time.Now().Before(deadline) {
				n, err := b.Wait(ready, 100*time.Millisecond)
				if err != nil {
					t.Fatal(err)
				}
				for _, tag := range ready[:n] {
					seen[tag] = true
				}
			}
			if len(seen) != pipes {
				t.Fatalf("%d of %d written pipes reported", len(seen), pipes)
			}
			if multi && b.CtlCalls() != pipes {
				t.Errorf("%d interest changes after the reports, want the %d of Arm alone", b.CtlCalls(), pipes)
			}
		})
	}
}
