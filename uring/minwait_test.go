package uring

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/pipebench/pipebenchtest"
)

// minWaiters are the factories whose wait takes a minimum wait.
var minWaiters = []pipebench.Factory{Factory, OneShotFactory, EpollFactory}

// withMinWait is f opening its backends with minimum wait d.
func withMinWait(f pipebench.Factory, d time.Duration) pipebench.Factory {
	open := f.Open
	f.Open = func(o pipebench.Options) (pipebench.Mechanism, error) {
		o.MinWait = d
		return open(o)
	}
	return f
}

// openMinWait opens f's backend with minimum wait d over n new pipes,
// pipe i under tag i, skipping where io_uring, the operation or the
// minimum wait is refused.
func openWithMinWait(t *testing.T, f pipebench.Factory, d time.Duration, n int) (pipebench.Mechanism, [][2]int) {
	t.Helper()
	m, err := f.Open(pipebench.Options{Pipes: n, MaxFD: 64, MinWait: d})
	pipebenchtest.SkipIfRefused(t, err)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m, registerPipes(t, m, n)
}

// TestMinWaitConforms: with a minimum wait, each variant still keeps the
// Mechanism contract: the conformance suite, whose timed checks hold a
// Wait to its timeout and whose runs account for every token.
func TestMinWaitConforms(t *testing.T) {
	if testing.Short() {
		t.Skip("the conformance suite for each variant takes a while")
	}
	for _, f := range minWaiters {
		t.Run(f.Name, func(t *testing.T) { pipebenchtest.TestMechanism(t, withMinWait(f, time.Millisecond)) })
	}
}

// TestMinWait holds the minimum wait to the kernel's rule (minwait.go) on
// real pipes, with the clock read around each Wait: a Wait that may block
// and finds fewer completions than its ready slice has room for lasts the
// minimum wait at least, whether the pipe was written before it or during
// it; a positive timeout shorter than the minimum wait ends it sooner, and
// a Wait that may not block has none.
func TestMinWait(t *testing.T) {
	const d = 5 * time.Millisecond
	for _, f := range minWaiters {
		t.Run(f.Name, func(t *testing.T) {
			// The kernel posts a completion from the thread that submitted
			// its request: one thread throughout, for the Wait that may not
			// block to find it.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			m, pipes := openWithMinWait(t, f, d, 4)
			ready := make([]int32, 4)
			timed := func(timeout time.Duration, want int) time.Duration {
				t.Helper()
				start := time.Now()
				n, err := m.Wait(ready, timeout)
				took := time.Since(start)
				if err != nil || n != want {
					t.Fatalf("wait (timeout %v): %d tags %v, %v; want %d", timeout, n, ready[:max(n, 0)], err, want)
				}
				if want == 1 {
					unix.Read(pipes[ready[0]][0], make([]byte, 8))
				}
				return took
			}
			timed(0, 0) // arms the polls, or submits the epoll wait
			write1(t, pipes[2][1])
			if took := timed(-1, 1); took < d {
				t.Errorf("pipe written before a blocking wait: returned after %v, before the minimum wait %v", took, d)
			}
			go func() {
				time.Sleep(time.Millisecond)
				unix.Write(pipes[1][1], []byte{1})
			}()
			if took := timed(time.Second, 1); took < d {
				t.Errorf("pipe written 1ms into a wait: returned after %v, before the minimum wait %v", took, d)
			}
			if took := timed(2*time.Millisecond, 0); took < 2*time.Millisecond {
				t.Errorf("nothing written, timeout 2ms: returned after %v, before its timeout", took)
			}
			write1(t, pipes[3][1])
			timed(0, 1)
		})
	}
}

// TestMinWaitFullBatch: a poll backend's wait returns without waiting for
// the minimum wait once its ready slice can be filled: a completion per
// slot (here a minimum wait of a second, and two pipes ready for a slice of
// two).
func TestMinWaitFullBatch(t *testing.T) {
	for _, f := range []pipebench.Factory{Factory, OneShotFactory} {
		t.Run(f.Name, func(t *testing.T) {
			m, pipes := openWithMinWait(t, f, time.Second, 2)
			ready := make([]int32, 2)
			if n, err := m.Wait(ready, 0); n != 0 || err != nil {
				t.Fatalf("nothing written: %d, %v", n, err)
			}
			write1(t, pipes[0][1])
			write1(t, pipes[1][1])
			start := time.Now()
			n, err := m.Wait(ready, -1)
			if took := time.Since(start); n != 2 || err != nil || took >= time.Second {
				t.Errorf("two pipes ready, room for two: %d tags, %v, after %v; want both before the minimum wait of 1s", n, err, took)
			}
		})
	}
}

// TestMinWaitRuns: in a run with one token in flight every readiness call
// waits the minimum wait, so that there are at most as many calls as
// minimum waits fit in the window (and one more), every token accounted
// for; -delay, the reader's sleep before each call, bounds them alike.
func TestMinWaitRuns(t *testing.T) {
	const d = 2 * time.Millisecond
	for _, f := range minWaiters {
		for _, c := range []struct {
			name string
			set  func(*pipebench.Config)
		}{
			{"MinWait", func(c *pipebench.Config) { c.MinWait = d }},
			{"Delay", func(c *pipebench.Config) { c.Delay = d }},
		} {
			t.Run(f.Name+"/"+c.name, func(t *testing.T) {
				cfg := pipebench.Config{
					Workload:  pipebench.Workload{Pipes: 50, InFlight: 1},
					Readiness: pipebench.Readiness{Backend: &f},
					Threads:   pipebench.Threads{Writer: pipebench.WriterThread},
					Window:    pipebench.Window{Duration: 300 * time.Millisecond, Interval: 100 * time.Millisecond},
				}
				c.set(&cfg)
				res, err := pipebench.Run(cfg, pipebench.Observers{})
				pipebenchtest.SkipIfRefused(t, err)
				if err != nil {
					t.Fatal(err)
				}
				if err := res.CheckValid(); err != nil {
					t.Fatal(err)
				}
				tot := res.Totals
				if res.Tokens.Lost != 0 || tot.Events == 0 {
					t.Fatalf("tokens %+v, %d events", res.Tokens, tot.Events)
				}
				if most := uint64(res.Elapsed/d) + 1; tot.Calls > most {
					t.Errorf("%d readiness calls in %v, each after a wait or sleep of %v: want at most %d", tot.Calls, res.Elapsed, d, most)
				}
			})
		}
	}
}

// TestMinWaitRefused: where the kernel lacks IORING_FEAT_MIN_TIMEOUT
// (played by io_uring_setup answering without the feature bit), Check
// refuses a minimum wait in one line naming -minwait, the backend, the
// release that added it and -delay, as a ConfigError (the command: exit
// status 2), and lets a run without one through; Open refuses a minimum
// wait with an errors.ErrUnsupported.
func TestMinWaitRefused(t *testing.T) {
	skipWithoutRing(t)
	realSetup := setupCall
	defer func() { setupCall = realSetup; probed.Clear() }()
	setupCall = func(entries uint32, p *params) (int, unix.Errno) {
		fd, e := realSetup(entries, p)
		p.features &^= featMinTimeout
		return fd, e
	}
	probed.Clear()
	for _, f := range minWaiters {
		if err := f.Check(&pipebench.Config{}, flags); err != nil {
			t.Errorf("%s without a minimum wait: %v", f.Name, err)
		}
		msg := checkRefusal(t, f.Check(&pipebench.Config{Readiness: pipebench.Readiness{MinWait: time.Millisecond}}, flags), "MinWait", "Backend", "Delay")
		for _, w := range []string{"-minwait 1ms with -b " + f.Name + ": ", "IORING_FEAT_MIN_TIMEOUT", "Linux 6.12", "use -delay"} {
			if !strings.Contains(msg, w) {
				t.Errorf("%q does not say %q", msg, w)
			}
		}
		openRefused(t, &f, pipebench.Options{Pipes: 4, MaxFD: 64, MinWait: time.Millisecond}, "Linux 6.12")
	}
}
