package pipebenchtest

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/pipebench/pipebench/internal/osthread"
	"github.com/pipebench/pipebench/pipebench"
	"golang.org/x/sys/unix"
)

// checkWokenByWrite: a blocking Wait, with no timeout or a long one, ends
// when another goroutine writes a registered pipe, and reports that pipe.
func checkWokenByWrite(t *testing.T, f pipebench.Factory) {
	for _, timeout := range []time.Duration{-1, hangGuard} {
		t.Run(timeoutName(timeout), func(t *testing.T) {
			x := newFixture(t, f, 3)
			defer x.guard(2)()
			var wg sync.WaitGroup
			defer wg.Wait()
			wg.Go(func() {
				time.Sleep(20 * time.Millisecond)
				writeFrom(t, x.pipes[0].w)
			})
			got := x.wait(timeout)
			if len(got) != 1 || got[0] != 0 {
				t.Fatalf("blocking wait woken by a write to pipe 0 reported %s", x.describe(got))
			}
		})
	}
}

// timeoutName names a subtest or a failure by its Wait timeout.
func timeoutName(d time.Duration) string {
	if d < 0 {
		return "blocking"
	}
	return fmt.Sprintf("timeout=%v", d)
}

// checkEINTR: signals arriving while Wait blocks never reach the caller: a
// timed Wait still times out empty after at least its timeout, and a
// blocking Wait still returns the pipe written meanwhile. The signal is
// SIGURG, sent to the waiting thread: the Go runtime always handles it (it
// is its preemption signal) and must tolerate spurious ones, and since the
// wait calls are never restarted by the kernel each one that lands makes the
// system call fail with EINTR.
func checkEINTR(t *testing.T, f pipebench.Factory) {
	t.Run("Timed", func(t *testing.T) {
		const timeout = 100 * time.Millisecond
		x := newFixture(t, f, 2)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		stop := interrupt(t, unix.Gettid(), -1)
		defer stop()
		start := time.Now()
		n, err := x.b.Wait(x.buf, timeout)
		took := time.Since(start)
		stop()
		if err != nil {
			t.Fatalf("wait interrupted by signals: %v", err)
		}
		if n != 0 {
			t.Fatalf("nothing written, wait interrupted by signals reported %d tags", n)
		}
		if took < timeout {
			t.Errorf("wait with timeout %v, interrupted by signals, returned after %v: before its timeout", timeout, took)
		}
		if took > hangGuard {
			t.Errorf("wait with timeout %v, interrupted by signals, took %v", timeout, took)
		}
	})
	t.Run("Blocking", func(t *testing.T) {
		x := newFixture(t, f, 3)
		defer x.guard(2)()
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		stop := interrupt(t, unix.Gettid(), x.pipes[0].w)
		defer stop()
		got := x.wait(-1)
		stop()
		if len(got) != 1 || got[0] != 0 {
			t.Fatalf("blocking wait interrupted by signals, then woken by a write to pipe 0, reported %s", x.describe(got))
		}
	})
}

// interrupt sends SIGURG to thread tid every millisecond until stopped;
// after 50ms it writes a token to fd, if fd is not -1. The returned stop
// waits for the sender to end and may be called more than once; call it
// before the thread is unlocked.
func interrupt(t *testing.T, tid, fd int) (stop func()) {
	pid := unix.Getpid()
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		write := time.After(50 * time.Millisecond)
		for {
			select {
			case <-quit:
				return
			case <-write:
				if fd >= 0 {
					writeFrom(t, fd)
				}
			case <-tick.C:
				if err := unix.Tgkill(pid, tid, unix.SIGURG); err != nil {
					t.Errorf("tgkill SIGURG: %v", err)
					return
				}
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(quit) })
		<-done
	}
}

// guard writes pipe i once the hang guard has passed, so that a Wait that
// should have been woken otherwise still ends, reporting pipe i, and the
// test fails instead of hanging. The returned stop cancels the guard and
// waits for it, so that it never writes after the pipe is closed.
func (x *fixture) guard(i int) (stop func()) {
	fd := x.pipes[i].w
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		select {
		case <-quit:
		case <-time.After(hangGuard):
			writeFrom(x.t, fd)
		}
	}()
	return func() {
		close(quit)
		<-done
	}
}

// writeFrom writes one token to fd from a goroutine other than the test's,
// where t.Fatal may not be called.
func writeFrom(t *testing.T, fd int) {
	if n, err := unix.Write(fd, token); n != 1 || err != nil {
		t.Errorf("write to fd %d: n=%d err=%v", fd, n, err)
	}
}

// checkStopTheWorld: a Wait blocked in the kernel does not hold up a
// stop-the-world. Wait's system call keeps its thread's P (the Mechanism
// contract), so the runtime's preemption signal must end the call (EINTR)
// and the retry must give the goroutine a chance to stop: a wait call that
// the kernel restarts after a signal (a blocking read, say) would hold
// every goroutine until something was written. runtime.GC stops the world
// twice; it must finish while Wait still blocks.
//
// If it does not, no goroutine can run to end the test, so the guard is
// another process: a shell that writes pipe 0 after hangGuard, which ends
// the Wait, lets the world stop, and the test fails.
func checkStopTheWorld(t *testing.T, f pipebench.Factory) {
	x := newFixture(t, f, 2)
	_, release := osthread.LendPs(1)
	defer release()
	waited := make(chan []int, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		waited <- x.wait(-1)
	}()
	time.Sleep(20 * time.Millisecond) // let it block
	guard := writeLater(t, x.pipes[0].w, hangGuard)
	start := time.Now()
	runtime.GC()
	took := time.Since(start)
	guard()
	if took >= hangGuard {
		t.Errorf("runtime.GC took %v, until the guard wrote a pipe: a blocked Wait holds up a stop-the-world", took.Round(time.Millisecond))
	}
	select {
	case got := <-waited:
		if took < hangGuard {
			t.Fatalf("Wait returned %s with nothing written", x.describe(got))
		}
		return
	default:
	}
	writeFrom(t, x.pipes[0].w)
	if got := <-waited; len(got) != 1 || got[0] != 0 {
		t.Fatalf("blocking wait woken by a write to pipe 0 after a GC reported %s", x.describe(got))
	}
}

// writeLater starts a process that writes one byte into fd after d, for a
// guard that must work while no goroutine can run. The returned stop kills
// it (if it has not written yet) and waits for it.
func writeLater(t *testing.T, fd int, d time.Duration) (stop func()) {
	dup, err := unix.Dup(fd)
	if err != nil {
		t.Fatalf("dup fd %d: %v", fd, err)
	}
	w := os.NewFile(uintptr(dup), "guarded pipe")
	defer w.Close()
	cmd := exec.Command("/bin/sh", "-c", fmt.Sprintf("sleep %.3f; printf t >&3", d.Seconds()))
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the guard process: %v", err)
	}
	return func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
}
