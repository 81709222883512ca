package pipebench_test

import (
	"testing"
	"time"

	"github.com/pipebench/pipebench/epoll"
	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/poll"
	fdselect "github.com/pipebench/pipebench/select"
)

// waitCounted is a backend that counts the calls of its Wait. Wait runs
// on the reader thread only; the count is read once the run has returned.
type waitCounted struct {
	pipebench.Mechanism
	waits uint64
}

func (w *waitCounted) Wait(ready []int32, timeout time.Duration) (int, error) {
	w.waits++
	return w.Mechanism.Wait(ready, timeout)
}

// waitCountedConfig is baseConfig on backend f, its Wait counted by w.
func waitCountedConfig(f pipebench.Factory, w *waitCounted) pipebench.Config {
	open := f.Open
	f.Name += "-counted"
	f.Open = func(o pipebench.Options) (pipebench.Mechanism, error) {
		b, err := open(o)
		w.Mechanism = b
		return w, err
	}
	cfg := baseConfig()
	cfg.Backend = &f
	return cfg
}

// oneCallWaits are the backends whose Wait makes one wait system call,
// and another only after a signal ended it (EINTR): epoll's one-shot
// re-arm before it is ctl calls.
var oneCallWaits = []pipebench.Factory{epoll.LevelFactory, epoll.EdgeFactory, epoll.OneShotFactory, poll.Factory, fdselect.Factory}

// TestReaderWaitsThroughWait: every readiness call the reader makes is
// its backend's Wait, counted as the system calls Wait made: in self
// mode, where the reader never sleeps (so no signal ends a call), the
// window's wait system calls are its readiness calls, one each, and Wait
// was called for each of them.
func TestReaderWaitsThroughWait(t *testing.T) {
	for _, f := range oneCallWaits {
		t.Run(f.Name, func(t *testing.T) {
			w := &waitCounted{}
			cfg := waitCountedConfig(f, w)
			cfg.Writer = pipebench.WriterSelf
			res, err := pipebench.Run(cfg, pipebench.Observers{})
			if err != nil {
				t.Fatal(err)
			}
			checkAccounting(t, res)
			tot := res.Totals
			if tot.WaitSyscalls != tot.Calls || w.waits < tot.Calls {
				t.Errorf("%d readiness calls in the window, %d wait system calls, %d calls of Wait in the run: want one system call a readiness call, each through Wait", tot.Calls, tot.WaitSyscalls, w.waits)
			}
		})
	}
}

// TestReaderWaitsThroughSignals: signals that end the reader's wait as it
// sleeps (EINTR; a writer thread and one token in flight, so that it
// sleeps for every token) are retried inside Wait and never reach the
// reader: the run accounts for every token, and counts the interrupted
// calls as the wait system calls they were, more than the readiness
// calls.
func TestReaderWaitsThroughSignals(t *testing.T) {
	for _, f := range oneCallWaits {
		t.Run(f.Name, func(t *testing.T) {
			cfg := baseConfig()
			cfg.Backend = &f
			cfg.Writer, cfg.InFlight = pipebench.WriterThread, 1
			obs, signaled := signalReader(200 * time.Microsecond)
			res, err := pipebench.Run(cfg, obs)
			if err != nil {
				t.Fatal(err)
			}
			sent := signaled()
			checkAccounting(t, res)
			tot := res.Totals
			if sent < 100 || tot.WaitSyscalls <= tot.Calls {
				t.Errorf("%d signals to the reader: %d readiness calls, %d wait system calls; want some calls interrupted, made again by Wait and counted", sent, tot.Calls, tot.WaitSyscalls)
			}
		})
	}
}
