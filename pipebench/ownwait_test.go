package pipebench_test

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/epoll"
	"github.com/pipebench/pipebench/pipebench"
)

// watched is an epoll backend that counts the calls of its Wait, and
// offers its set to the reader (pipebench.EpollSet) as the backend does.
// Wait runs on the reader thread only; the count is read once the run
// has returned.
type watched struct {
	pipebench.Mechanism
	waits int
}

func (w *watched) Wait(ready []int32, timeout time.Duration) (int, error) {
	w.waits++
	return w.Mechanism.Wait(ready, timeout)
}

func (w *watched) EpollSet() (int, []unix.EpollEvent, bool) {
	return w.Mechanism.(pipebench.EpollSet).EpollSet()
}

// watchedConfig is baseConfig on epoll variant f, its backend watched by w.
func watchedConfig(f pipebench.Factory, w *watched) pipebench.Config {
	open := f.Open
	f.Name += "-watched"
	f.Open = func(o pipebench.Options) (pipebench.Mechanism, error) {
		b, err := open(o)
		w.Mechanism = b
		return w, err
	}
	cfg := baseConfig()
	cfg.Backend = &f
	return cfg
}

// TestReaderMakesEpollWait: on a plain epoll set the reader makes every
// epoll_pwait itself, in its own loop (pipebench.EpollSet), and counts
// them: in self mode, where the reader never sleeps, the backend's Wait
// is not called once, and every readiness call is one wait system call.
// A one-shot set, which Wait re-arms before its call, is waited on
// through Wait.
func TestReaderMakesEpollWait(t *testing.T) {
	for _, c := range []struct {
		f      pipebench.Factory
		direct bool
	}{{epoll.LevelFactory, true}, {epoll.EdgeFactory, true}, {epoll.OneShotFactory, false}} {
		t.Run(c.f.Name, func(t *testing.T) {
			w := &watched{}
			cfg := watchedConfig(c.f, w)
			cfg.Writer = pipebench.WriterSelf
			res, err := pipebench.Run(cfg)
			if err != nil {
				t.Fatal(err)
			}
			checkAccounting(t, res)
			tot := res.Totals
			if c.direct && (w.waits != 0 || tot.WaitSyscalls != tot.Calls) {
				t.Errorf("%d readiness calls, %d wait system calls, %d of them through Wait: want every call made by the reader, one system call each", tot.Calls, tot.WaitSyscalls, w.waits)
			}
			if !c.direct && (w.waits == 0 || uint64(w.waits) < tot.Calls) {
				t.Errorf("%d readiness calls through Wait, %d counted in the window: want every call through Wait", w.waits, tot.Calls)
			}
		})
	}
}

// TestReaderEpollWaitThroughSignals: signals that end the reader's own
// epoll_pwait as it sleeps (EINTR; a writer thread and one token in
// flight, so that it sleeps for every token) send it to Wait, which
// waits again; the run accounts for every token, and counts the
// interrupted calls as the wait system calls they were, more than the
// readiness calls.
func TestReaderEpollWaitThroughSignals(t *testing.T) {
	w := &watched{}
	cfg := watchedConfig(epoll.LevelFactory, w)
	cfg.Writer, cfg.InFlight = pipebench.WriterThread, 1
	signaled := signalReader(&cfg, 200*time.Microsecond)
	res, err := pipebench.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	sent := signaled()
	checkAccounting(t, res)
	tot := res.Totals
	if sent < 100 || w.waits == 0 || tot.WaitSyscalls <= tot.Calls {
		t.Errorf("%d signals to the reader: %d readiness calls, %d wait system calls, %d calls of Wait; want some calls interrupted, handed to Wait and counted", sent, tot.Calls, tot.WaitSyscalls, w.waits)
	}
}
