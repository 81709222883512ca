package pipebench

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/internal/osthread"
	"github.com/pipebench/pipebench/internal/tokens"
)

// measure runs the measured window and its teardown: the reader thread and
// a writer thread start and wait, the window opens, the reporter closes an
// interval at every boundary until it ends, the window closes, and every
// token is accounted for.
func (r *run) measure() (*Result, error) {
	if r.proc != nil {
		r.res.Setup.WriterPID = r.proc.cmd.Process.Pid
	}
	rd := r.newReader()
	th := r.startThreads(rd)
	w := r.openWindow(th)
	r.report(w.t0, w.ctl0, w.clocks, w.cpu0, th.readDone)
	r.closeWindow(rd, th, w)
	sentUnknown := r.collectWriter(th)
	r.res.Process, _ = w.process.Stop()
	r.nameWriterDeath(th.readerErr)
	return r.account(&th.wrep, sentUnknown)
}

// newReader makes the reader of the window: its routes, histograms and
// settings.
func (r *run) newReader() *reader {
	cfg := &r.cfg
	rd := &reader{
		forwarder: forwarder{format: cfg.format(), route: tokens.NewRouter(cfg.Route, cfg.Seed, cfg.Pipes), wfds: r.wfds, noun: cfg.Source.noun()},
		be:        r.be, rfds: r.rfds, self: r.plan.Writer == WriterSelf, credit: -1, timeout: cfg.WaitTimeout, stop: &r.stop, ctr: &r.ctr,
		churn: cfg.Churn, churnRoute: tokens.NewRouter(RouteRandom, cfg.Seed^0xc4a2, cfg.Pipes),
	}
	rd.newHists(cfg.Pipes)
	if cfg.Delay > 0 {
		ts := unix.NsecToTimespec(cfg.Delay.Nanoseconds())
		rd.delay = &ts
	}
	if !cfg.Backend.Features.Has(NoWaitCall) {
		rd.ready = make([]int32, cfg.Pipes)
		rd.edge = cfg.Backend.Features.Has(EdgeTriggered)
	}
	if !rd.self && cfg.InFlight > 0 {
		rd.credit = r.creditW
	}
	return rd
}

// threads are the window's reader thread and writer thread (thread mode).
type threads struct {
	wg       sync.WaitGroup
	start    chan struct{} // closed when the window opens
	readDone chan struct{} // closed when the reader has returned
	// readerErr is the reader's failure, read after readDone.
	readerErr error
	// writer and wrep are the writer thread and its report (thread mode),
	// or the writer process's report; read after wg.Wait.
	writer *tokens.Writer
	wrep   writerReport
}

// startThreads starts the reader thread, first, so that no token waits for
// it, and in thread mode the writer thread. Each locks itself to its
// thread, says who it is and waits for the window to open; the reader
// first arms the backend. startThreads returns once they wait, with their
// thread ids in the setup.
func (r *run) startThreads(rd *reader) *threads {
	cfg := &r.cfg
	th := &threads{start: make(chan struct{}), readDone: make(chan struct{})}
	readerTID, writerTID := make(chan int, 1), make(chan int, 1)
	armed := make(chan error, 1)
	th.wg.Add(1)
	go func() {
		defer th.wg.Done()
		defer close(th.readDone)
		r.enterThread(r.readerRole(), cfg.readerCPU(), readerTID)
		defer runtime.UnlockOSThread()
		armed <- r.arm()
		<-th.start
		u := osthread.StartUsage(unix.RUSAGE_THREAD)
		err := r.read(rd)
		r.res.ReaderThread, _ = u.Stop()
		if err != nil {
			th.readerErr = err
			r.fail(err)
		}
	}()
	if r.plan.Writer == WriterThread {
		th.writer = &tokens.Writer{
			WFDs: r.wfds, Route: tokens.NewRouter(cfg.Route, cfg.Seed, cfg.Pipes), InFlight: cfg.InFlight,
			Credits: r.creditR, Stop: &r.stop, Format: cfg.format(),
		}
		th.wg.Add(1)
		go func() {
			defer th.wg.Done()
			r.enterThread(RoleWriter, cfg.writerCPU(), writerTID)
			defer runtime.UnlockOSThread()
			<-th.start
			u := osthread.StartUsage(unix.RUSAGE_THREAD)
			err := th.writer.Run()
			th.wrep.Thread, _ = u.Stop()
			th.wrep.WriterCounts = th.writer.Counts
			if err != nil {
				r.fail(err)
			}
		}()
	}
	r.res.Setup.ReaderTID = <-readerTID
	switch {
	case th.writer != nil:
		r.res.Setup.WriterTID = <-writerTID
	case r.proc == nil:
		r.res.Setup.WriterTID = r.res.Setup.ReaderTID
	}
	if err := <-armed; err != nil {
		r.fail(err)
	}
	r.res.Setup.Took += r.armTook
	return th
}

// window is what the window's start was: its time, the ctl count and CPU
// clocks then, and the process's usage meter.
type window struct {
	t0      time.Time
	ctl0    uint64
	clocks  cpuClocks
	cpu0    CPUTimes
	process osthread.Meter
	kernel  *kernelMeter // the backend's kernel thread, if it runs one
}

// openWindow calls OnSetup, then opens the window: the threads start, and
// a writer process is told to start and watched for dying.
func (r *run) openWindow(th *threads) window {
	if r.cfg.OnSetup != nil {
		r.cfg.OnSetup(r.res.Setup)
	}
	clocks := newCPUClocks(r.res.Setup.ReaderTID, r.res.Setup.WriterTID, r.res.Setup.WriterPID)
	w := window{clocks: clocks, process: osthread.StartUsage(unix.RUSAGE_SELF), kernel: r.startKernelThread()}
	// Setup's registrations are not part of the measured window.
	w.ctl0 = r.ctlNow()
	w.cpu0 = clocks.read(CPUTimes{})
	w.t0 = time.Now()
	close(th.start)
	if r.proc != nil {
		if err := sendMsg(r.proc.ctl, msgStart, nil, nil); err != nil {
			r.fail(r.procErr(err))
		}
		go func() {
			select {
			case <-r.proc.done:
				cause, _ := r.proc.exitCause(0)
				r.fail(fmt.Errorf("%s during the run", cause))
			case <-r.halt:
			}
		}()
	}
	return w
}

// closeWindow ends the window: the writer is told to stop at once, so that
// it writes nothing after it, the reader returns, OnDone is called, and the
// reader's counts and distributions are the result's.
func (r *run) closeWindow(rd *reader, th *threads, w window) {
	r.end()
	if r.plan.Writer == WriterThread || r.plan.Writer == WriterProcess {
		var sb [8]byte
		if err := tokens.SendCredit(r.creditW, &sb, tokens.StopWord); err != nil {
			r.fail(fmt.Errorf("tell the writer to stop: %w", err))
		}
	}
	r.awaitReader(th.readDone)
	r.res.Elapsed = time.Since(w.t0)
	kt, err := w.kernel.stop()
	if err != nil {
		r.fail(err)
	}
	r.res.KernelThread = kt
	if r.cfg.OnDone != nil {
		r.cfg.OnDone()
	}
	r.res.PerCall = rd.perCall
	r.res.Latency = rd.lat
	final := r.ctr.snapshot()
	final.Ctl = r.ctlNow() - w.ctl0
	r.res.Totals = final
	r.res.Tail = final.Sub(r.reported)
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
		r.fail(fmt.Errorf("the reader still waited for writer process %d %v after the run ended: killed it", r.proc.cmd.Process.Pid, readerGrace))
		r.proc.kill()
		<-readDone
	}
}

// collectWriter waits for the writer's counts (a writer process's come in
// its report) and puts them in the result. It says whether the count of
// tokens sent is unknown: a writer process that did not report is dead or
// stuck, and is killed rather than waited for.
func (r *run) collectWriter(th *threads) (sentUnknown bool) {
	th.wg.Wait()
	if r.plan.Writer == WriterProcess {
		if err := r.collectReport(&th.wrep); err != nil {
			r.fail(err)
			sentUnknown = true
			r.proc.kill()
		}
	}
	rep := &th.wrep
	r.res.WriterThread, r.res.WriterProcess = rep.Thread, rep.Process
	r.res.WriterWrites, r.res.WriterReads, r.res.WriterWaits = rep.Writes, rep.Reads, rep.Waits
	return sentUnknown
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

// account drains the pipes and accounts for every token: sent = received +
// drained, lost 0, unless what was sent is unknown. It returns the result
// with the run's first failure, or a *TokenLossError.
func (r *run) account(wrep *writerReport, sentUnknown bool) (*Result, error) {
	t := Tokens{Received: r.res.Totals.Tokens, Full: wrep.Full}
	if r.plan.Writer == WriterSelf {
		t.Sent = r.primed + r.res.Totals.Writes
	} else {
		t.Sent = wrep.Sent
	}
	var want uint64 // tokens left in flight, when known
	if !sentUnknown && t.Sent > t.Received {
		want = t.Sent - t.Received
	}
	drained, err := r.drain(want)
	if err != nil {
		r.fail(err)
	}
	t.Drained = drained
	if sentUnknown {
		t.SentUnknown = true
	} else {
		t.Lost = int64(t.Sent) - int64(t.Received) - int64(t.Drained)
	}
	r.res.Tokens = t
	if err := r.failure(); err != nil {
		return &r.res, err
	}
	if t.Lost != 0 {
		return &r.res, &TokenLossError{Tokens: t}
	}
	return &r.res, nil
}

// report prints an interval at every boundary until the duration is over,
// Stop is closed, the run stalls or fails.
func (r *run) report(t0 time.Time, ctl0 uint64, clocks cpuClocks, cpu0 CPUTimes, readDone <-chan struct{}) {
	cfg := &r.cfg
	var prev Counts
	prev.Ctl = ctl0
	prevCPU := cpu0
	last, lastEvent := t0, t0
	timer := time.NewTimer(cfg.Interval)
	defer timer.Stop()
	for k := 1; ; k++ {
		select {
		case <-timer.C:
		case <-cfg.Stop:
			r.res.Interrupted = true
			return
		case <-r.halt:
			return
		case <-readDone:
			return
		}
		now := time.Now()
		snap := r.ctr.snapshot()
		snap.Ctl = r.ctlNow()
		cpu := clocks.read(prevCPU)
		iv := newInterval(k, snap.Sub(prev), now.Sub(last), cpu.Sub(prevCPU))
		iv.Late = now.Sub(t0.Add(time.Duration(k) * cfg.Interval))
		prev, last, prevCPU = snap, now, cpu
		r.reported = snap
		r.reported.Ctl -= ctl0
		r.res.Intervals = append(r.res.Intervals, iv)
		if cfg.OnInterval != nil {
			cfg.OnInterval(iv)
		}
		if iv.Events > 0 {
			lastEvent = now
		} else if idle := now.Sub(lastEvent); idle >= cfg.StallAfter {
			r.fail(&StallError{For: idle.Round(time.Millisecond), Received: snap.Tokens})
			return
		}
		if cfg.Duration > 0 && time.Duration(k)*cfg.Interval >= cfg.Duration {
			return
		}
		timer.Reset(t0.Add(time.Duration(k+1) * cfg.Interval).Sub(time.Now()))
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
func (r *run) drain(want uint64) (uint64, error) {
	buf := make([]byte, 64<<10)
	size := uint64(r.cfg.format().Size())
	bytes := make([]uint64, len(r.rfds)) // per channel, across passes
	var counted uint64                   // eventfd counters read
	deadline := time.Now().Add(tcpSettle)
	if r.follows() { // the bypass read them blocking; the drain must not wait
		for i, fd := range r.rfds {
			if err := unix.SetNonblock(int(fd), true); err != nil {
				return 0, fmt.Errorf("drain %s %d (fd %d): make it non-blocking: %w", r.cfg.Source, i, fd, err)
			}
		}
	}
	for {
		for i, fd := range r.rfds {
			for {
				n, e := tokens.Read(fd, buf)
				if e == unix.EAGAIN || (e == 0 && n == 0) {
					break
				}
				if e != 0 {
					return counted, fmt.Errorf("drain %s %d (fd %d): %w", r.cfg.Source, i, fd, e)
				}
				if r.cfg.Source == SourceEventfd {
					counted += binary.LittleEndian.Uint64(buf[:8])
					continue
				}
				bytes[i] += uint64(n)
			}
		}
		total := counted
		for _, b := range bytes {
			total += b / size
		}
		if r.cfg.Source != SourceTCP || total >= want || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	total := counted
	for i, b := range bytes {
		if b%size != 0 {
			return total, fmt.Errorf("drain %s %d: %d bytes left, not a whole number of %d-byte tokens", r.cfg.Source, i, b, size)
		}
		total += b / size
	}
	return total, nil
}
