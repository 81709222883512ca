package pipebench_test

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/poll"
)

// armed is a poll backend made a pipebench.Armer: it records the thread of
// its Arm and of its first Wait, and its Arm takes armTook and adds armMany
// to WaitSyscalls and CtlCalls, which must not reach the window's counts.
// WaitSyscalls is read on the reader thread, CtlCalls by the reporter too.
type armed struct {
	pipebench.Mechanism
	fail            error
	arms, waits     int
	armTID, waitTID int
	armedAfterWait  bool
	armSyscalls     uint64
	armCtl          atomic.Uint64
}

const (
	armTook = 30 * time.Millisecond
	armMany = 1 << 40
)

func (a *armed) Arm() error {
	a.arms++
	a.armTID = unix.Gettid()
	a.armedAfterWait = a.waits > 0
	time.Sleep(armTook)
	a.armSyscalls = armMany
	a.armCtl.Store(armMany)
	return a.fail
}

func (a *armed) Wait(ready []int32, timeout time.Duration) (int, error) {
	if a.waits == 0 {
		a.waitTID = unix.Gettid()
	}
	a.waits++
	return a.Mechanism.Wait(ready, timeout)
}

func (a *armed) WaitSyscalls() uint64 { return a.Mechanism.WaitSyscalls() + a.armSyscalls }
func (a *armed) CtlCalls() uint64     { return a.Mechanism.CtlCalls() + a.armCtl.Load() }

func armedConfig(a *armed) pipebench.Config {
	f := poll.Factory
	f.Name = "poll-armed"
	f.Open = func(o pipebench.Options) (pipebench.Mechanism, error) {
		b, err := poll.Factory.Open(o)
		a.Mechanism = b
		return a, err
	}
	cfg := baseConfig()
	cfg.Backend = &f
	cfg.Writer = pipebench.WriterThread
	return cfg
}

// TestRunArmsOnReaderThread: the harness calls an Armer's Arm once, on the
// reader thread, before its first Wait; the arming's time is setup time,
// and its system calls and interest changes are not in the window's
// counts.
func TestRunArmsOnReaderThread(t *testing.T) {
	a := &armed{}
	res, err := pipebench.Run(armedConfig(a), pipebench.Observers{})
	if err != nil {
		t.Fatal(err)
	}
	checkAccounting(t, res)
	if a.arms != 1 || a.armedAfterWait {
		t.Errorf("Arm called %d times (after a Wait: %v), want once, before the first Wait", a.arms, a.armedAfterWait)
	}
	if a.armTID != res.Setup.ReaderTID || a.waitTID != res.Setup.ReaderTID {
		t.Errorf("armed on thread %d, first Wait on %d, reader thread %d: want all the same", a.armTID, a.waitTID, res.Setup.ReaderTID)
	}
	if res.Setup.Took < armTook {
		t.Errorf("setup took %v, less than the %v Arm took", res.Setup.Took, armTook)
	}
	if tot := res.Totals; tot.WaitSyscalls >= armMany || tot.Ctl >= armMany || tot.WaitSyscalls < tot.Calls {
		t.Errorf("window counts %d wait system calls for %d calls and %d ctl calls: Arm's are in them, or calls are missing", tot.WaitSyscalls, tot.Calls, tot.Ctl)
	}
	for _, iv := range res.Intervals {
		if iv.WaitSyscalls >= armMany || iv.Ctl >= armMany {
			t.Errorf("interval %d counts Arm's calls: %d wait system calls, %d ctl calls", iv.Index, iv.WaitSyscalls, iv.Ctl)
		}
	}
}

// TestRunArmFails: a failing Arm fails the run, naming it, without a hang
// or a lost token.
func TestRunArmFails(t *testing.T) {
	before := openFDs(t)
	a := &armed{fail: errors.New("no ring for you")}
	res, err := runWithin(t, armedConfig(a), pipebench.Observers{}, 20*time.Second, "after Arm failed")
	if err == nil || !strings.Contains(err.Error(), "arm poll-armed on the reader thread: no ring for you") {
		t.Fatalf("run after a failed Arm: %v, want the Arm's error", err)
	}
	if res != nil {
		if err := res.CheckValid(); err != nil {
			t.Errorf("a failed Arm: %v", err)
		}
	}
	if after := openFDs(t); after != before {
		t.Errorf("%d descriptors open before the run, %d after", before, after)
	}
}

// signalReader is the Observers of a run that send the reader thread a
// signal every period from setup until the window ends, and a function
// that, once the run has returned, says how many it sent. The signal is SIGURG,
// the Go runtime's own preemption signal: harmless to the process, and it
// ends a wait or sleep of the reader's with EINTR.
func signalReader(period time.Duration) (obs pipebench.Observers, sent func() int) {
	stop := make(chan struct{})
	done := make(chan int, 1)
	obs.OnSetup = func(s pipebench.Setup) {
		go func() {
			n := 0
			defer func() { done <- n }()
			for {
				select {
				case <-stop:
					return
				case <-time.After(period):
				}
				if unix.Tgkill(s.PID, s.ReaderTID, unix.SIGURG) == nil {
					n++
				}
			}
		}()
	}
	obs.OnDone = func() { close(stop) }
	return obs, func() int { return <-done }
}

// TestRunDelayThroughSignals: -delay sleeps its whole time before every
// readiness call even when signals keep interrupting the sleep (EINTR):
// with a 40 ms delay, a 400 ms window holds about 10 calls, however many
// signals arrive.
func TestRunDelayThroughSignals(t *testing.T) {
	cfg := baseConfig()
	cfg.Writer, cfg.Delay = pipebench.WriterSelf, 40*time.Millisecond
	obs, signaled := signalReader(time.Millisecond)
	res, err := pipebench.Run(cfg, obs)
	if err != nil {
		t.Fatal(err)
	}
	sent := signaled()
	checkAccounting(t, res)
	most := uint64(cfg.Duration/cfg.Delay) + 2
	if sent < 100 || res.Totals.Calls > most {
		t.Errorf("%d readiness calls in %v with a %v delay and %d signals to the reader: want at most %d", res.Totals.Calls, res.Elapsed, cfg.Delay, sent, most)
	}
}

// TestIntervalsHoldTheirCalls: a reader that makes fewer readiness calls
// than it publishes after (a 5 ms delay before each: about 80 calls in the
// window) still publishes at every interval's boundary, when the reporter
// asks, so that the intervals hold the calls made in them and the tail
// only the end of the window's.
func TestIntervalsHoldTheirCalls(t *testing.T) {
	cfg := baseConfig()
	cfg.Writer, cfg.Delay = pipebench.WriterSelf, 5*time.Millisecond
	res, err := pipebench.Run(cfg, pipebench.Observers{})
	if err != nil {
		t.Fatal(err)
	}
	checkAccounting(t, res)
	var calls uint64
	for _, iv := range res.Intervals {
		calls += iv.Calls
	}
	if calls < res.Totals.Calls/2 {
		t.Errorf("the intervals hold %d of the window's %d readiness calls, the tail %d: want most in the intervals",
			calls, res.Totals.Calls, res.Tail.Calls)
	}
}
