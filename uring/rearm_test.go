package uring

import (
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/pipebench"
)

// openOne opens a backend of the variant with one pipe registered as tag 1,
// all closed when the test ends.
func openOne(t *testing.T, multi bool) (*backend, [2]int) {
	t.Helper()
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	be, err := openOrSkip(t, pipebench.Options{Pipes: 2, MaxFD: p[0]}, multi)
	if err != nil {
		unix.Close(p[0])
		unix.Close(p[1])
		t.Fatal(err)
	}
	t.Cleanup(func() {
		be.Close()
		unix.Close(p[0])
		unix.Close(p[1])
	})
	b := be.(*backend)
	if err := b.Add(p[0], 1); err != nil {
		t.Fatal(err)
	}
	return b, p
}

// expectTag waits up to a second and requires tag 1 alone.
func expectTag(t *testing.T, b *backend, why string) {
	t.Helper()
	ready := make([]int32, 2)
	n, err := b.Wait(ready, time.Second)
	if err != nil || n != 1 || ready[0] != 1 {
		t.Fatalf("%s: wait reported %v (err %v), want tag 1", why, ready[:n], err)
	}
}

// opAsyncCancel is IORING_OP_ASYNC_CANCEL: it cancels the request whose
// user data is in addr, which then completes with -ECANCELED.
const opAsyncCancel = 14

// TestRearmAfterCancel: a poll the kernel ends with -ECANCELED and no
// report (it does so, for example, for a one-shot poll whose submitting
// thread has exited) is armed again by the next Wait, with one submission,
// and reports new data; a blocking Wait does not hang on it.
func TestRearmAfterCancel(t *testing.T) {
	for _, multi := range []bool{true, false} {
		t.Run(map[bool]string{true: "multishot", false: "oneshot"}[multi], func(t *testing.T) {
			b, p := openOne(t, multi)
			if _, err := b.Wait(make([]int32, 2), 0); err != nil { // submits the poll
				t.Fatal(err)
			}
			s, err := b.ring.slot()
			if err != nil {
				t.Fatal(err)
			}
			ud := userData(1, b.regs[1].gen)
			s.opcode, s.fd, s.addr, s.userData = opAsyncCancel, -1, ud, ud|removeBit
			b.ring.push()
			// Submitted without reaping: the Wait below finds -ECANCELED
			// first and must arm the poll again before it blocks.
			if _, e := b.ring.enter(0, false, 0); e != 0 {
				t.Fatalf("submit the cancel: %v", e)
			}
			armed := b.CtlCalls()
			if _, err := unix.Write(p[1], []byte{1}); err != nil {
				t.Fatal(err)
			}
			expectTag(t, b, "written after the kernel cancelled its poll")
			if got := b.CtlCalls(); got != armed+1 {
				t.Errorf("CtlCalls %d after the kernel cancelled the poll, want %d (one re-arm)", got, armed+1)
			}
		})
	}
}

// TestRearmAfterOverflow: when the completion queue is full the kernel
// ends a multishot poll with a last completion without IORING_CQE_F_MORE;
// the backend reports the descriptor once, arms it again at the next Wait
// (one submission, no more), and the new poll reports new data.
func TestRearmAfterOverflow(t *testing.T) {
	runtime.LockOSThread() // completions are posted by the submitting thread
	defer runtime.UnlockOSThread()
	b, p := openOne(t, true)
	if _, err := b.Wait(make([]int32, 2), 0); err != nil { // submits the poll
		t.Fatal(err)
	}
	armed := b.CtlCalls()
	// Each write from this thread posts one completion on the way back
	// from write(2); enough of them overflow the queue.
	for i := range len(b.ring.cqes) + 8 {
		if _, err := unix.Write(p[1], []byte{1}); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	expectTag(t, b, "written past the completion queue's size")
	var buf [4096]byte
	for {
		if n, _ := unix.Read(p[0], buf[:]); n <= 0 {
			break
		}
	}
	// Wait until the overflowed last completion is flushed and reaped.
	for range 10 {
		if b.CtlCalls() > armed {
			break
		}
		b.Wait(make([]int32, 2), 10*time.Millisecond)
	}
	if got := b.CtlCalls(); got != armed+1 {
		t.Fatalf("CtlCalls %d after the kernel ended the multishot poll, want %d (one re-arm)", got, armed+1)
	}
	if _, err := unix.Write(p[1], []byte{1}); err != nil {
		t.Fatal(err)
	}
	expectTag(t, b, "written after the re-arm")
}
