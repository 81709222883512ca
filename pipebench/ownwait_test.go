package pipebench_test

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/epoll"
	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/poll"
	fdselect "github.com/pipebench/pipebench/select"
)

// watched is a backend that counts the calls of its Wait, and offers its
// set to the reader (pipebench.EpollSet, PollWait, SelectWait) as the
// backend does, refusing when the backend offers none. Wait runs on the
// reader thread only; the count is read once the run has returned.
type watched struct {
	pipebench.Mechanism
	waits int
}

func (w *watched) Wait(ready []int32, timeout time.Duration) (int, error) {
	w.waits++
	return w.Mechanism.Wait(ready, timeout)
}

func (w *watched) EpollSet() (int, []unix.EpollEvent, bool) {
	if es, ok := w.Mechanism.(pipebench.EpollSet); ok {
		return es.EpollSet()
	}
	return -1, nil, false
}

func (w *watched) PollSet() (*pipebench.PollSet, bool) {
	if ps, ok := w.Mechanism.(pipebench.PollWait); ok {
		return ps.PollSet()
	}
	return nil, false
}

func (w *watched) SelectSet() (*pipebench.SelectSet, bool) {
	if ss, ok := w.Mechanism.(pipebench.SelectWait); ok {
		return ss.SelectSet()
	}
	return nil, false
}

// watchedConfig is baseConfig on backend f, its backend watched by w.
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

// ownWaits are the backends whose Wait is one system call on a set they
// hand to the reader, which makes that call in its own loop.
var ownWaits = []pipebench.Factory{epoll.LevelFactory, epoll.EdgeFactory, poll.Factory, fdselect.Factory}

// TestReaderMakesOwnWait: on a plain epoll set, and on poll's and
// select's sets, the reader makes every readiness system call itself, in
// its own loop, and counts them: in self mode, where the reader never
// sleeps, the backend's Wait is not called once, and every readiness
// call is one wait system call. A one-shot epoll set, which Wait re-arms
// before its call, is waited on through Wait.
func TestReaderMakesOwnWait(t *testing.T) {
	type want struct {
		f      pipebench.Factory
		direct bool
	}
	cases := []want{{epoll.OneShotFactory, false}}
	for _, f := range ownWaits {
		cases = append(cases, want{f, true})
	}
	for _, c := range cases {
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

// TestReaderOwnWaitThroughSignals: signals that end the reader's own
// readiness call as it sleeps (EINTR; a writer thread and one token in
// flight, so that it sleeps for every token) send it to Wait, which
// waits again; the run accounts for every token, and counts the
// interrupted calls as the wait system calls they were, more than the
// readiness calls.
func TestReaderOwnWaitThroughSignals(t *testing.T) {
	for _, f := range ownWaits {
		t.Run(f.Name, func(t *testing.T) {
			w := &watched{}
			cfg := watchedConfig(f, w)
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
		})
	}
}
