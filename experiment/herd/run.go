package herd

import (
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/internal/child"
	"github.com/pipebench/pipebench/internal/fdlimit"
	"github.com/pipebench/pipebench/internal/lifecycle"
	"github.com/pipebench/pipebench/internal/osthread"
	"github.com/pipebench/pipebench/internal/rounds"
	"github.com/pipebench/pipebench/internal/tokens"
	"github.com/pipebench/pipebench/pipebench"
)

// Prepared is a herd checked against its rules and planned, ready to run:
// Prepare makes one, and its Run runs it without checking again.
type Prepared struct {
	cfg   Config // with its defaults filled in
	base  int    // descriptors open when it was planned
	limit uint64
}

// Prepare is the one entry point to a herd's rules: it checks c (a
// *pipebench.ConfigError), raises the descriptor limit and checks that
// every setting fits it and the epoll watch limit (a
// *pipebench.LimitError), before anything is made; refusals are written by
// names (nil: by the Config's own field names).
func Prepare(c Config, names pipebench.Names) (*Prepared, error) {
	cfg := c.withDefaults()
	if err := cfg.check(names); err != nil {
		return nil, err
	}
	limit, base, err := fdlimit.Budget()
	if err != nil {
		return nil, err
	}
	if err := plan(&cfg, base, limit, maxUserWatches(), names); err != nil {
		return nil, err
	}
	return &Prepared{cfg: cfg, base: base, limit: limit}, nil
}

// Run measures every setting of Exclusive in turn, each on a fresh set of
// pipes and waiters, Rounds times (RoundOrder says in which order). It
// raises GOMAXPROCS by one P for the writer thread and, in threads mode,
// one for each waiter (a waiter process has 2 of its own), so that the Go
// scheduler does not put waiters to sleep waiting for a P. A setting that
// fails ends the run: the result holds the settings measured so far (the
// failed one included, when it measured anything) with the error.
func (p *Prepared) Run(obs Observers) (*Result, error) {
	cfg, base, limit := p.cfg, p.base, p.limit
	// The writer thread waits for credits in a raw system call and keeps
	// its P (internal/osthread); a waiter thread returning from epoll_wait
	// must find a P at once: queueing for one would add the Go scheduler's
	// own sleeps and wake-ups to the herd's. Each gets a P lent for the run.
	lend := 1
	if cfg.Mode == Threads {
		lend += cfg.Waiters
	}
	_, release := osthread.LendPs(lend)
	defer release()
	res := &Result{Rounds: cfg.Rounds}
	for r := 1; r <= cfg.Rounds; r++ {
		round := r
		if cfg.Rounds == 1 {
			round = 0
		}
		for _, ex := range RoundOrder(cfg.Exclusive, r) {
			s := newSetting(&cfg, obs, ex, base, limit)
			s.round = round
			sd, err := s.run()
			if sd != nil {
				res.Settings = append(res.Settings, *sd)
			}
			if err != nil {
				if round > 0 {
					return res, fmt.Errorf("round %d, EPOLLEXCLUSIVE %s: %w", round, OnOff(ex), err)
				}
				return res, fmt.Errorf("EPOLLEXCLUSIVE %s: %w", OnOff(ex), err)
			}
			if sd.Interrupted {
				return res, nil
			}
		}
	}
	return res, nil
}

// RoundOrder is the order of the settings in round r (from 1), turned by
// one each round (rounds.Turned): with two settings the order alternates
// (off, on; on, off; ...).
func RoundOrder(settings []bool, r int) []bool {
	order := make([]bool, len(settings))
	for i, k := range rounds.Turned(len(settings), r) {
		order[i] = settings[k]
	}
	return order
}

// OnOff names an EPOLLEXCLUSIVE setting.
func OnOff(exclusive bool) string {
	if exclusive {
		return "on"
	}
	return "off"
}

// setting is one setting's resources, from setup to teardown.
type setting struct {
	cfg       *Config
	obs       Observers
	exclusive bool
	round     int // 0 in a run of one round
	base      int
	limit     uint64

	rfds, wfds       []int32
	stops            []int32 // each waiter's stop eventfd
	creditR, creditW int32
	counts           *sharedCounts

	waiters     []*waiter        // threads mode
	waitersDone chan struct{}    // threads mode: closed when every waiter has returned
	children    []*child.Process // processes mode
	started     bool             // waiters were started
	stopped     bool             // every waiter has stopped (or been killed)

	writer        *tokens.Writer
	writerDone    chan struct{}
	writerStopped bool // the stop word was sent
	writerUsage   osthread.Usage

	ending lifecycle.Ending // the first failure ends the measurement

	res Setting
}

func newSetting(cfg *Config, obs Observers, ex bool, base int, limit uint64) *setting {
	return &setting{cfg: cfg, obs: obs, exclusive: ex, base: base, limit: limit,
		creditR: -1, creditW: -1}
}

func (s *setting) run() (*Setting, error) {
	defer s.release()
	t0 := time.Now()
	if err := s.setup(); err != nil {
		return nil, err
	}
	if err := s.awaitReady(time.Minute); err != nil {
		return nil, err
	}
	c := s.cfg
	parent, child := need(c, s.base)
	s.res.Setup = Setup{
		Exclusive: s.exclusive, Round: s.round, Waiters: c.Waiters, Mode: c.Mode, Pipes: c.Pipes, InFlight: c.InFlight,
		Took: time.Since(t0), ParentFDs: parent, WaiterFDs: child, Limit: s.limit,
		GOMAXPROCS: runtime.GOMAXPROCS(0),
	}
	if s.obs.OnSetup != nil {
		s.obs.OnSetup(s.res.Setup)
	}
	return s.measure()
}

func (s *setting) setup() error {
	for range s.cfg.Waiters {
		fd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
		if err != nil {
			return fmt.Errorf("make a waiter's stop eventfd: %w", err)
		}
		s.stops = append(s.stops, int32(fd))
	}
	cr, cw, err := tokens.NewCreditPipe(false, pipebench.MaxInFlight)
	if err != nil {
		return err
	}
	s.creditR, s.creditW = cr, cw
	n := s.cfg.Pipes
	s.rfds, s.wfds = make([]int32, 0, n), make([]int32, 0, n)
	for i := range n {
		var p [2]int
		if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
			open, _ := fdlimit.OpenFDs()
			return fmt.Errorf("make pipe %d of %d (%d descriptors open, limit %d): %w", i+1, n, open, s.limit, err)
		}
		s.rfds, s.wfds = append(s.rfds, int32(p[0])), append(s.wfds, int32(p[1]))
	}
	if s.counts, err = newSharedCounts(s.cfg.Waiters); err != nil {
		return err
	}
	if s.cfg.Mode == Processes {
		return s.startProcesses()
	}
	return s.startThreads()
}

// startThreads gives every waiter an epoll set, then a locked OS thread.
// The thread exits with its goroutine (it stays locked), so that a large
// herd leaves no idle threads behind.
func (s *setting) startThreads() error {
	for i := range s.cfg.Waiters {
		w, err := newWaiter(s.rfds, s.stops[i], s.creditW, s.exclusive, s.cfg.WaitTimeout, &s.counts.waiters[i])
		if err != nil {
			return fmt.Errorf("waiter %d: %w", i, err)
		}
		s.waiters = append(s.waiters, w)
	}
	var wg sync.WaitGroup
	for i, w := range s.waiters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			if err := w.serve(unix.Gettid()); err != nil {
				s.ending.Fail(fmt.Errorf("waiter thread %d: %w", i, err))
			}
		}()
	}
	s.started = true
	s.waitersDone = make(chan struct{})
	go func() { wg.Wait(); close(s.waitersDone) }()
	return nil
}

func (s *setting) startProcesses() error {
	s.started = true
	rfds := make([]int, len(s.rfds))
	for i, fd := range s.rfds {
		rfds[i] = int(fd)
	}
	for i := range s.cfg.Waiters {
		spec := waiterSpec{Index: i, Waiters: s.cfg.Waiters, Pipes: s.cfg.Pipes, Exclusive: s.exclusive, Timeout: s.cfg.WaitTimeout}
		c, err := startWaiterProcess(spec, s.counts.fd, s.stops[i], s.creditW, rfds)
		if err != nil {
			return err
		}
		s.children = append(s.children, c)
	}
	return nil
}

// checkChildren fails on any waiter process that has exited.
func (s *setting) checkChildren() error {
	for _, c := range s.children {
		if cause, exited := c.Exited(0); exited {
			return fmt.Errorf("%s before it was told to stop", cause)
		}
	}
	return nil
}

// awaitReady waits until every waiter's epoll set is complete and it is
// about to wait.
func (s *setting) awaitReady(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for !s.counts.all(fReady) {
		if err := s.ending.Err(); err != nil {
			return err
		}
		if err := s.checkChildren(); err != nil {
			return fmt.Errorf("during setup: %w", err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("waiters not ready within %v", limit)
		}
		time.Sleep(time.Millisecond)
	}
	return nil
}

func (s *setting) measure() (*Setting, error) {
	c := s.cfg
	proc := osthread.StartUsage(unix.RUSAGE_SELF)
	start := s.counts.sum()
	t0 := time.Now()
	// The run's writer, bounded by credits on the seeded random route.
	s.writer = &tokens.Writer{WFDs: s.wfds, Route: tokens.NewRouter(tokens.RouteRandom, c.RouteSeed, len(s.wfds)),
		InFlight: c.InFlight, Credits: s.creditR, Stop: new(atomic.Bool)}
	s.writerDone = make(chan struct{})
	go func() {
		defer close(s.writerDone)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		u := osthread.StartUsage(unix.RUSAGE_THREAD)
		if err := s.writer.Run(); err != nil {
			s.ending.Fail(err)
		}
		if usage, err := u.Stop(); err == nil {
			s.writerUsage = usage
		}
	}()
	s.report(t0, start)
	end := s.counts.sum()
	s.res.Elapsed = time.Since(t0)
	s.res.Window = end.Sub(start)
	if usage, err := proc.Stop(); err == nil {
		s.res.Process = usage
	}
	if err := s.stopWaiters(10 * time.Second); err != nil {
		s.ending.Fail(err)
	}
	if err := s.stopWriter(10 * time.Second); err != nil {
		s.ending.Fail(err)
	}
	s.res.Writer = s.writerUsage
	s.collect()
	if s.writer != nil && s.stopped {
		drained, err := s.drain()
		if err != nil {
			s.ending.Fail(err)
		}
		t := pipebench.Tokens{Sent: s.writer.Counts.Sent, Received: s.res.Totals.Tokens, Drained: drained}
		t.Lost = int64(t.Sent) - int64(t.Received) - int64(t.Drained)
		s.res.Tokens = t
		if t.Lost != 0 {
			s.ending.Fail(&pipebench.TokenLossError{Tokens: t})
		}
	}
	return &s.res, s.ending.Err()
}

// report closes an interval at every boundary until the duration is over,
// Stop is closed, the setting stalls or fails.
func (s *setting) report(t0 time.Time, start Counts) {
	c := s.cfg
	prev, last := start, t0
	clock := lifecycle.Clock{Start: t0, Every: c.Interval, For: c.Duration, StallAfter: c.StallAfter}
	end, idle := clock.Run(s.obs.Stop, s.ending.Done(), nil, func(k int, now time.Time) (bool, bool) {
		snap := s.counts.sum()
		if err := s.checkChildren(); err != nil {
			s.ending.Fail(fmt.Errorf("during the run: %w", err))
			return false, false
		}
		iv := newInterval(s.exclusive, k, snap.Sub(prev), now.Sub(last))
		prev, last = snap, now
		s.res.Intervals = append(s.res.Intervals, iv)
		if s.obs.OnInterval != nil {
			s.obs.OnInterval(iv)
		}
		return iv.Tokens > 0, true
	})
	switch end {
	case lifecycle.Interrupted:
		s.res.Interrupted = true
	case lifecycle.Stalled:
		s.ending.Fail(&pipebench.StallError{For: idle.Round(time.Millisecond), Received: prev.Tokens})
	}
}

// stopWaiters makes every waiter's stop eventfd readable, which its epoll
// set reports at once, and waits for them all; processes that do not stop
// in time are killed.
func (s *setting) stopWaiters(limit time.Duration) error {
	if !s.started || s.stopped {
		return nil
	}
	var one [8]byte
	binary.LittleEndian.PutUint64(one[:], 1)
	for i, fd := range s.stops {
		if _, err := unix.Write(int(fd), one[:]); err != nil {
			return fmt.Errorf("stop waiter %d: write its eventfd: %w", i, err)
		}
	}
	if s.cfg.Mode == Threads {
		select {
		case <-s.waitersDone:
			s.stopped = true
			return nil
		case <-time.After(limit):
			return fmt.Errorf("waiter threads did not stop within %v", limit)
		}
	}
	deadline := time.Now().Add(limit)
	var err error
	for _, c := range s.children {
		cause, exited := c.Exited(time.Until(deadline))
		switch {
		case !exited:
			c.Kill()
			<-c.Done()
			if err == nil {
				err = fmt.Errorf("waiter process %d did not stop within %v; killed", c.Pid(), limit)
			}
		case !c.Clean() && err == nil:
			err = errors.New(cause)
		}
	}
	s.stopped = true
	return err
}

// stopWriter sends the stop word and waits for the writer thread.
func (s *setting) stopWriter(limit time.Duration) error {
	if s.writerDone == nil || s.writerStopped {
		return nil
	}
	s.writerStopped = true
	var b [8]byte
	if err := tokens.SendCredit(s.creditW, &b, tokens.StopWord); err != nil {
		return fmt.Errorf("tell the writer to stop: %w", err)
	}
	select {
	case <-s.writerDone:
		return nil
	case <-time.After(limit):
		s.writer = nil // its count cannot be read safely
		return fmt.Errorf("writer did not stop within %v", limit)
	}
}

// collect reads every waiter's final counts and usage from the shared counts.
func (s *setting) collect() {
	s.res.Waiters = make([]Waiter, len(s.counts.waiters))
	var total Counts
	var usage osthread.Usage
	for i := range s.counts.waiters {
		sl := &s.counts.waiters[i]
		w := Waiter{ID: int(sl.load(fID)), Counts: sl.counts(), Usage: sl.usage()}
		s.res.Waiters[i] = w
		total = total.Add(w.Counts)
		usage = usage.Add(w.Usage)
	}
	s.res.Totals, s.res.WaiterUsage = total, usage
}

// drain reads every pipe dry and counts the tokens left in flight.
func (s *setting) drain() (uint64, error) {
	var buf [64 << 10]byte
	var total uint64
	for i, fd := range s.rfds {
		for {
			n, e := tokens.Read(fd, buf[:]).Split()
			if e == unix.EAGAIN || (e == 0 && n == 0) {
				break
			}
			if e != 0 {
				return total, fmt.Errorf("drain pipe %d (fd %d): %w", i, fd, e)
			}
			total += uint64(n)
		}
	}
	return total, nil
}

// release stops what still runs and closes everything; it is safe on a
// half-made setting. What may still be in use by a thread that did not stop
// (its epoll set, the shared counts) is left open rather than pulled from under it.
func (s *setting) release() {
	_ = s.stopWaiters(5 * time.Second)
	_ = s.stopWriter(5 * time.Second)
	if s.stopped || !s.started {
		for _, w := range s.waiters {
			w.close()
		}
		if s.counts != nil {
			s.counts.close()
		}
	}
	for _, c := range s.children {
		c.Kill()
		c.Close(time.Second)
	}
	closeAll := func(fds ...int32) {
		for _, fd := range fds {
			if fd >= 0 {
				unix.Close(int(fd))
			}
		}
	}
	closeAll(s.rfds...)
	closeAll(s.wfds...)
	closeAll(s.stops...)
	closeAll(s.creditR, s.creditW)
}
