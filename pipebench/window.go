package pipebench

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/internal/lifecycle"
	"github.com/pipebench/pipebench/internal/osthread"
	"github.com/pipebench/pipebench/internal/tokens"
	"github.com/pipebench/pipebench/stats"
)

// measure runs the measured window and its teardown: the reader thread and
// a writer thread start and wait, the window opens, the reporter closes an
// interval at every boundary until it ends, the window closes, and every
// token is accounted for.
func (r *run) measure() (*Result, error) {
	rds := make([]*reader, r.cfg.Readers)
	r.ctrs = make([]counters, len(rds))
	for k := range rds {
		rds[k] = r.newReader(k)
	}
	th := r.startThreads(rds)
	w := r.openWindow(th)
	r.closeIntervals(w, th.readDone)
	r.closeWindow(rds, th, w)
	r.collectWriter(th)
	r.obs.process, _ = w.process.Stop()
	r.nameWriterDeath(th.readerErr())
	r.account()
	res := r.result(th)
	return res, r.outcome(res)
}

// newReader makes reader k of the window, over its part of the pipes:
// its routes, histograms and settings.
func (r *run) newReader(k int) *reader {
	cfg := &r.cfg
	lo, hi := cfg.part(k)
	ctr := &r.ctrs[k]
	ctr.ack = make(chan struct{}, 1)
	rd := &reader{
		Surface: Surface{pipes: cfg.Pipes, inFlight: cfg.InFlight, self: r.plan.Writer == WriterSelf, wfds: r.wfds, credit: -1,
			route: cfg.Route, routeSeed: cfg.RouteSeed, format: cfg.format(), noun: cfg.Source.noun(), ctr: ctr, stop: &r.stop},
		forwarder: forwarder{format: cfg.format(), route: tokens.NewRouter(cfg.Route, cfg.RouteSeed, cfg.Pipes), wfds: r.wfds, noun: cfg.Source.noun()},
		rfds:      r.rfds[lo:hi], timeout: cfg.WaitTimeout,
		churn: cfg.Churn, churnRoute: tokens.NewRouter(RouteRandom, cfg.RouteSeed^0xc4a2+uint64(k)*seedApart, hi-lo),
	}
	rd.newHists(min(hi-lo, r.maxEvents(k)))
	if cfg.Delay > 0 {
		ts := unix.NsecToTimespec(cfg.Delay.Nanoseconds())
		rd.delay = &ts
	}
	if !cfg.Backend.IsLoop() {
		rd.be = r.mechs[k]
		rd.ready = make([]int32, r.maxEvents(k))
		rd.edge = cfg.Backend.Features.Has(EdgeTriggered)
	}
	switch {
	case cfg.Writers > 1:
		rd.creditWriters(cfg, lo, hi, r.credits)
	case !rd.self && cfg.InFlight > 0:
		rd.credit = r.credits[0].w
	}
	return rd
}

// seedApart separates the routes of several readers and writers seeded from
// one seed (the golden ratio's 64-bit fraction, as a Loop's workers use).
const seedApart = 0x9e3779b97f4a7c15

// threads are the window's reader threads and writer threads (thread mode).
type threads struct {
	wg       sync.WaitGroup
	start    chan struct{} // closed when the window opens
	readDone chan struct{} // closed when every reader has returned
	left     atomic.Int32  // readers yet to return
	// readerErrs are the readers' failures and readerUse their usage, read
	// after readDone.
	readerErrs []error
	readerUse  []Usage
	// readerTIDs and writerTIDs are the reader and writer threads' ids, in
	// order, once startThreads has returned.
	readerTIDs, writerTIDs []int
	// writers and wreps are the writer threads and their reports (thread
	// mode), or the writer process's report; read after wg.Wait.
	writers []*tokens.Writer
	wreps   []writerReport
}

// readerErr is the first reader's failure, read after readDone.
func (th *threads) readerErr() error {
	for _, err := range th.readerErrs {
		if err != nil {
			return err
		}
	}
	return nil
}

// startThreads starts the reader threads, first, so that no token waits
// for them, and in thread mode the writer threads. Each locks itself to its
// thread, says who it is and waits for the window to open; a reader first
// arms its backend. startThreads returns once they wait, with their thread
// ids.
func (r *run) startThreads(rds []*reader) *threads {
	cfg := &r.cfg
	nr := len(rds)
	th := &threads{start: make(chan struct{}), readDone: make(chan struct{}), readerErrs: make([]error, nr), readerUse: make([]Usage, nr)}
	th.left.Store(int32(nr))
	readerTIDs, writerTIDs := tidChans(nr), tidChans(0)
	armed := make(chan error, nr)
	for k, rd := range rds {
		th.wg.Add(1)
		go func() {
			defer th.wg.Done()
			defer func() {
				if th.left.Add(-1) == 0 {
					close(th.readDone)
				}
			}()
			leave := r.enterThread(r.readerRole(), cfg.readerCPU(k), readerTIDs[k])
			defer leave()
			armed <- r.arm(k)
			<-th.start
			u := osthread.StartUsage(unix.RUSAGE_THREAD)
			err := r.read(rd)
			th.readerUse[k], _ = u.Stop()
			if err != nil {
				th.readerErrs[k] = err
				r.fail(err)
			}
		}()
	}
	switch r.plan.Writer {
	case WriterThread:
		th.writers, th.wreps = make([]*tokens.Writer, cfg.Writers), make([]writerReport, cfg.Writers)
		writerTIDs = tidChans(cfg.Writers)
		for w := range th.writers {
			th.writers[w] = r.newWriter(w)
			th.wg.Add(1)
			go func() {
				defer th.wg.Done()
				leave := r.enterThread(RoleWriter, cfg.writerCPU(w), writerTIDs[w])
				defer leave()
				<-th.start
				u := osthread.StartUsage(unix.RUSAGE_THREAD)
				err := th.writers[w].Run()
				th.wreps[w].Thread, _ = u.Stop()
				th.wreps[w].WriterCounts, th.wreps[w].LastTick = th.writers[w].Counts, th.writers[w].LastTick
				if err != nil {
					r.fail(err)
				}
			}()
		}
	case WriterProcess:
		th.wreps = make([]writerReport, 1)
	}
	th.readerTIDs, th.writerTIDs = receiveTIDs(readerTIDs), receiveTIDs(writerTIDs)
	for range nr {
		if err := <-armed; err != nil {
			r.fail(err)
		}
	}
	return th
}

// tidChans are n channels, each to hear one thread's id.
func tidChans(n int) []chan int {
	cs := make([]chan int, n)
	for i := range cs {
		cs[i] = make(chan int, 1)
	}
	return cs
}

// receiveTIDs receives one thread id from each channel, in order.
func receiveTIDs(cs []chan int) []int {
	out := make([]int, len(cs))
	for i, c := range cs {
		out[i] = <-c
	}
	return out
}

// newWriter makes writer thread w: the write ends of its own pipes, a route
// among them, its part of the tokens and its credit pipe. One writer
// writes every pipe.
func (r *run) newWriter(w int) *tokens.Writer {
	cfg := &r.cfg
	wfds := r.wfds
	if cfg.Writers > 1 {
		wfds = make([]int32, 0, cfg.writerPipes(w))
		for i := w; i < cfg.Pipes; i += cfg.Writers {
			wfds = append(wfds, r.wfds[i])
		}
	}
	wr := &tokens.Writer{
		WFDs: wfds, Route: tokens.NewRouter(cfg.Route, cfg.RouteSeed+uint64(w)*seedApart, len(wfds)), InFlight: cfg.writerInFlight(w),
		Credits: r.credits[w].r, Stop: &r.stop, Format: cfg.format(),
	}
	if cfg.Rate > 0 { // its schedule starts when the window opens
		wr.Pace = tokens.NewPace(tokens.Schedule{Rate: cfg.Rate}, w, cfg.Writers)
	}
	return wr
}

// windowStart is what the window's start was: its time, the ctl count and
// CPU clocks then, and the meters of the process's usage and the CPUs'
// halts.
type windowStart struct {
	t0      time.Time
	ctl0    uint64
	clocks  cpuClocks
	cpu0    CPUTimes
	process osthread.Meter
	kernel  *kernelMeter // the backend's kernel thread, if it runs one
	halts   osthread.HaltMeter
	machine osthread.StatMeter
}

// openWindow describes the setup, once, and calls OnSetup with it; then it
// opens the window: the threads start, and a writer process is told to
// start and watched for dying.
func (r *run) openWindow(th *threads) windowStart {
	// Which CPUs' idle states count is read before OnSetup, off the
	// window (it allocates); their counts at its edges.
	halts, machine := osthread.NewHaltMeter(), osthread.NewStatMeter()
	r.obs.setup = r.describe(th)
	if r.hooks.OnSetup != nil {
		r.hooks.OnSetup(r.obs.setup)
	}
	clocks := newCPUClocks(r.obs.setup, r.plan.Writer == WriterThread)
	w := windowStart{clocks: clocks, process: osthread.StartUsage(unix.RUSAGE_SELF), kernel: r.startKernelThread(), halts: halts.Start(),
		machine: machine.Start()}
	// Setup's registrations are not part of the measured window.
	w.ctl0 = r.ctlNow()
	w.cpu0 = clocks.read(CPUTimes{})
	w.t0 = time.Now()
	r.startSchedule(th)
	close(th.start)
	if r.proc != nil {
		if err := r.proc.Send(msgStart, writerStart{T0: r.obs.schedule.T0}); err != nil {
			r.fail(r.procErr(err))
		}
		go func() {
			select {
			case <-r.proc.Done():
				cause, _ := r.proc.exitCause(0)
				r.fail(fmt.Errorf("%s during the run", cause))
			case <-r.ending.Done():
			}
		}()
	}
	return w
}

// startSchedule fixes an open-loop run's schedule (Config.Rate) as the
// window opens: its T0 is now, for the writer threads, which read it once
// the window has opened, and for the writer process, told in its start
// message.
func (r *run) startSchedule(th *threads) {
	if r.cfg.Rate == 0 {
		return
	}
	r.obs.schedule = tokens.Schedule{T0: tokens.Nanotime(), Rate: r.cfg.Rate}
	for _, w := range th.writers {
		w.Pace.T0 = r.obs.schedule.T0
	}
}

// closeWindow ends the window: the writers are told to stop at once, so
// that they write nothing after it, the readers return, OnDone is called,
// and the readers' final counts and distributions are kept.
func (r *run) closeWindow(rds []*reader, th *threads, w windowStart) {
	r.obs.stopped = tokens.Nanotime()
	r.end()
	for i, c := range r.credits {
		var sb [8]byte
		if err := tokens.SendCredit(c.w, &sb, tokens.StopWord); err != nil {
			r.fail(fmt.Errorf("tell writer %d to stop: %w", i, err))
		}
	}
	r.awaitReader(th.readDone)
	o := &r.obs
	o.elapsed = time.Since(w.t0)
	o.halts, o.machine = w.halts.Stop(), w.machine.Stop()
	kt, err := w.kernel.stop()
	if err != nil {
		r.fail(err)
	}
	o.kernel = kt
	if r.hooks.OnDone != nil {
		r.hooks.OnDone()
	}
	o.perCall, o.latency = mergeHists(rds)
	o.final = r.snapshot()
	o.ctl = r.ctlNow() - w.ctl0
	o.received = receivedPerWriter(rds, r.cfg.writers())
}

// readerGrace is how long the reader may take to return once the window
// has closed before a writer process is killed to free it. Only the
// bypass's reader can wait that long: in a blocking read for a token of a
// writer process that neither writes it nor closes its write ends (stopped,
// say); killing it closes them. Every other reader returns within
// Config.WaitTimeout.
var readerGrace = 5 * time.Second

// awaitReader waits for the reader to return after the window closed,
// killing a writer process that keeps it waiting longer than readerGrace.
func (r *run) awaitReader(readDone <-chan struct{}) {
	if r.proc == nil {
		<-readDone
		return
	}
	t := time.NewTimer(readerGrace)
	defer t.Stop()
	select {
	case <-readDone:
	case <-t.C:
		r.fail(fmt.Errorf("the reader still waited for writer process %d %v after the run ended: killed it", r.proc.Pid(), readerGrace))
		r.proc.kill()
		<-readDone
	}
}

// mergeHists are the readers' ready-per-call and latency histograms as one
// each; one reader's are its own.
func mergeHists(rds []*reader) (perCall, lat stats.Hist) {
	if len(rds) == 1 {
		return rds[0].readyHist(), rds[0].lat
	}
	var top int
	for _, rd := range rds {
		top = max(top, len(rd.perCall)-1)
	}
	perCall = stats.NewHist(uint64(top))
	if rds[0].latency() {
		lat = stats.NewHist(latencyRange)
	}
	for _, rd := range rds {
		h := rd.readyHist()
		perCall.Merge(&h)
		if rd.latency() {
			lat.Merge(&rd.lat)
		}
	}
	return perCall, lat
}

// snapshot is each reader's counts (ctl counts are the reporter's to add).
func (r *run) snapshot() []Counts {
	per := make([]Counts, len(r.ctrs))
	for k := range r.ctrs {
		per[k] = r.ctrs[k].snapshot()
	}
	return per
}

// sum adds up the readers' counts.
func sum(per []Counts) Counts {
	var s Counts
	for _, c := range per {
		s = s.Add(c)
	}
	return s
}

// receivedPerWriter is what the readers received from each of writers
// writers' pipes over the run (the credits they owed it): with one writer,
// every token.
func receivedPerWriter(rds []*reader, writers int) []uint64 {
	got := make([]uint64, writers)
	for _, rd := range rds {
		if rd.received == nil { // one writer: every token is its
			got[0] += rd.ctr.snapshot().Tokens
			continue
		}
		for w, n := range rd.received {
			got[w] += n
		}
	}
	return got
}

// freshen asks every reader loop to publish the counts it holds back
// (reader.publish) and waits until each has, or until a readiness call
// must have returned: the wait timeout and the delay before each call,
// and a margin for the reader to be scheduled.
func (r *run) freshen() {
	wait := r.cfg.WaitTimeout
	if wait < 0 {
		wait = 100 * time.Millisecond
	}
	wait += r.cfg.Delay + 10*time.Millisecond
	for k := range r.ctrs {
		r.ctrs[k].ask()
	}
	for k := range r.ctrs {
		r.ctrs[k].fresh(wait)
	}
}

// collectWriter waits for the writers' counts (a writer process's come in
// its report) and keeps them. The count of tokens sent is unknown when a
// writer process did not report: it is dead or stuck, and is killed rather
// than waited for.
func (r *run) collectWriter(th *threads) {
	th.wg.Wait()
	if r.plan.Writer == WriterProcess {
		if err := r.collectReport(&th.wreps[0]); err != nil {
			r.fail(err)
			r.obs.sentUnknown = true
			r.proc.kill()
		}
	}
	r.obs.wreps = th.wreps
}

// nameWriterDeath makes a writer process's death the run's error when it
// is why the reader failed: its death closed the pipes (end of file) or the
// credit pipe (EPIPE), whichever the reader met first.
func (r *run) nameWriterDeath(readerErr error) {
	var eofErr *EOFError
	if r.proc != nil && (errors.As(readerErr, &eofErr) || errors.Is(readerErr, unix.EPIPE)) {
		if cause, ok := r.proc.exitCause(2 * time.Second); ok {
			r.replaceErr(fmt.Errorf("%s during the run: %w", cause, readerErr))
		}
	}
}

// account drains the pipes of the tokens left in flight, counting them
// per pipe, for the result's token accounting.
func (r *run) account() {
	var want uint64 // tokens left in flight, when known
	if sent, received := r.sent(), sum(r.obs.final).Tokens; !r.obs.sentUnknown && sent > received {
		want = sent - received
	}
	var err error
	r.obs.drained, r.obs.drainedPer, err = r.drain(want)
	if err != nil {
		r.fail(err)
	}
}

// closeIntervals closes an interval at every boundary until the duration is over,
// Stop is closed, the run stalls or fails.
func (r *run) closeIntervals(w windowStart, readDone <-chan struct{}) {
	cfg := &r.cfg
	t0, ctl0, clocks := w.t0, w.ctl0, w.clocks
	var prev Counts
	prev.Ctl = ctl0
	prevPer := make([]Counts, len(r.ctrs))
	prevCPU := w.cpu0
	last := t0
	clock := lifecycle.Clock{Start: t0, Every: cfg.Interval, For: cfg.Duration, StallAfter: cfg.StallAfter}
	end, idle := clock.Run(r.hooks.Stop, r.ending.Done(), readDone, func(k int, woke time.Time) (bool, bool) {
		r.freshen()
		now := time.Now()
		per := r.snapshot()
		snap := sum(per)
		snap.Ctl = r.ctlNow()
		cpu := clocks.read(prevCPU)
		iv := newInterval(k, snap.Sub(prev), now.Sub(last), cpu.Sub(prevCPU))
		if cfg.several() {
			iv.Readers = make([]uint64, len(per))
			for i, c := range per {
				iv.Readers[i] = c.Events - prevPer[i].Events
			}
		}
		iv.Late = woke.Sub(t0.Add(time.Duration(k) * cfg.Interval))
		prev, prevPer, last, prevCPU = snap, per, now, cpu
		r.obs.reported = snap
		r.obs.reported.Ctl -= ctl0
		r.obs.intervals = append(r.obs.intervals, iv)
		if r.hooks.OnInterval != nil {
			r.hooks.OnInterval(iv)
		}
		return iv.Events > 0, true
	})
	switch end {
	case lifecycle.Interrupted:
		r.obs.interrupted = true
	case lifecycle.Stalled:
		r.fail(&StallError{For: idle.Round(time.Millisecond), Received: prev.Tokens})
	}
}

// collectReport waits for the writer process's final report.
func (r *run) collectReport(rep *writerReport) error {
	// Not watching Stop: an interrupted run still wants the writer's count.
	body, err := r.proc.await(msgReport, 5*time.Second, nil)
	if err != nil {
		return fmt.Errorf("writer process did not report: %w", err)
	}
	if err := json.Unmarshal(body, rep); err != nil {
		return fmt.Errorf("decode writer report: %w", err)
	}
	return nil
}

// tcpSettle is how long the drain waits for tokens still on their way
// through the loopback device (-fd tcp) before it counts them lost.
const tcpSettle = 2 * time.Second

// drain reads every channel dry and counts the tokens left in flight. want
// is how many should be left (0 when unknown). A byte written to a pipe, a
// unix socket or an eventfd is there to read once the write returns; one
// written to a TCP connection may still be in the sender's queue or in
// the loopback device's backlog, so with -fd tcp the drain reads again
// until want tokens are out or tcpSettle has passed.
func (r *run) drain(want uint64) (total uint64, perPipe []uint64, err error) {
	buf := make([]byte, 64<<10)
	size := uint64(r.cfg.format().Size())
	bytes := make([]uint64, len(r.rfds))   // per channel, across passes
	counted := make([]uint64, len(r.rfds)) // eventfd counters read, per channel
	sum := func() uint64 {
		var t uint64
		for i, b := range bytes {
			t += counted[i] + b/size
		}
		return t
	}
	deadline := time.Now().Add(tcpSettle)
	if r.follows() { // the bypass read them blocking; the drain must not wait
		for i, fd := range r.rfds {
			if err := unix.SetNonblock(int(fd), true); err != nil {
				return 0, nil, fmt.Errorf("drain %s %d (fd %d): make it non-blocking: %w", r.cfg.Source, i, fd, err)
			}
		}
	}
	for {
		for i, fd := range r.rfds {
			for {
				n, e := tokens.Read(fd, buf).Split()
				if e == unix.EAGAIN || (e == 0 && n == 0) {
					break
				}
				if e != 0 {
					return sum(), nil, fmt.Errorf("drain %s %d (fd %d): %w", r.cfg.Source, i, fd, e)
				}
				if r.cfg.Source == SourceEventfd {
					counted[i] += binary.LittleEndian.Uint64(buf[:8])
					continue
				}
				bytes[i] += uint64(n)
			}
		}
		if r.cfg.Source != SourceTCP || sum() >= want || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	for i, b := range bytes {
		if b%size != 0 {
			return sum(), nil, fmt.Errorf("drain %s %d: %d bytes left, not a whole number of %d-byte tokens", r.cfg.Source, i, b, size)
		}
	}
	total = sum()
	for i, b := range bytes {
		counted[i] += b / size // now each channel's tokens
	}
	return total, counted, nil
}
