package pipebench

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/internal/child"
	"github.com/pipebench/pipebench/internal/fdlimit"
	"github.com/pipebench/pipebench/internal/lifecycle"
	"github.com/pipebench/pipebench/internal/osthread"
	"github.com/pipebench/pipebench/internal/tokens"
)

// measuredThreads counts this process's threads that hold a P for the whole
// window (internal/osthread): every reader, unless the backend reads on
// goroutines (its thread then waits in the Go scheduler, not in a system
// call), and every writer thread.
func (r *run) measuredThreads() int {
	n := 0
	if !r.goroutines() {
		n += r.cfg.Readers
	}
	if r.plan.Writer == WriterThread {
		n += r.cfg.Writers
	}
	return n
}

// run holds one benchmark's resources.
type run struct {
	cfg   Config
	plan  fdPlan
	hooks Observers // the caller's

	bes     []Interest  // every reader's instance
	mechs   []Mechanism // every reader's Mechanism (bes); none when a Loop reads
	loop    Loop        // the Loop (bes[0]), when the backend is one
	rfds    []int32
	wfds    []int32 // self and thread mode; the writer process holds its own
	proc    *writerProcess
	credits []creditPipe       // one per writer (thread and process mode)
	wstop   *tokens.SharedFlag // the writer process's stop flag
	primed  uint64             // tokens written by setup (self mode)
	armTook atomic.Int64       // nanoseconds the readers' Arm calls took

	ctrs []counters // every reader's, one each (padded)
	stop atomic.Bool

	ending lifecycle.Ending // the first failure; Done closed when the run must end

	// obs is what the run observes as it goes, from which result builds
	// the Result once, at the end (observed.go); not to be confused with
	// hooks, the caller's Observers.
	obs observed
}

// creditPipe carries one writer's credits from the readers: r is the
// writer's end, w the readers'.
type creditPipe struct{ r, w int32 }

// fail records the first failure and ends the run.
func (r *run) fail(err error) {
	r.ending.Record(err)
	r.end()
}

// end closes the window: the reader and a writer thread load stop, a
// writer process its shared copy, before their next system call. Only the
// first end touches the shared copy, which release unmaps after its own.
func (r *run) end() {
	r.stop.Store(true)
	r.ending.End(func() {
		if r.wstop != nil {
			r.wstop.Flag.Store(true)
		}
	})
}

func (r *run) failure() error { return r.ending.Err() }

func (r *run) setup() error {
	t0 := time.Now()
	cfg := &r.cfg
	mode := r.plan.Writer
	// The backend first: a mechanism this kernel does not offer (io_uring
	// disabled, say) is reported before any pipe or process is made. One
	// instance per reader, each sized for its part of the pipes.
	for k := range cfg.Readers {
		be, err := r.openBackend(k)
		if err != nil {
			return fmt.Errorf("open backend %s%s: %w", cfg.Backend.Name, r.readerName(k), err)
		}
		r.bes = append(r.bes, be)
	}
	if err := r.startWriter(); err != nil {
		return err
	}
	if err := r.makePipes(); err != nil {
		return err
	}
	if err := r.awaitWriterProcess(); err != nil {
		return err
	}
	if mode == WriterSelf && !cfg.Latency {
		if err := r.prime(); err != nil {
			return err
		}
	}
	r.obs.setupTook = time.Since(t0)
	return nil
}

// startWriter starts what the writer mode needs before the pipes are made:
// a writer process, told its setup, and the credit pipe, made before the
// pipes so that it gets a full-sized buffer; a writer process gets its read
// end, and the stop flag, and this process keeps only the write end.
func (r *run) startWriter() error {
	cfg := &r.cfg
	mode := r.plan.Writer
	if mode == WriterProcess {
		p, err := startWriterProcess(writerSetup{Pipes: cfg.Pipes, InFlight: cfg.InFlight, Route: cfg.Route, RouteSeed: cfg.RouteSeed,
			Latency: cfg.Latency, Source: cfg.Source, Rate: cfg.Rate, CPU: cfg.writerCPU(0), CloseAtStop: r.follows()})
		if err != nil {
			return err
		}
		r.proc = p
	}
	if mode != WriterThread && mode != WriterProcess {
		return nil
	}
	for w := range cfg.Writers {
		cr, cw, err := tokens.NewCreditPipe(mode == WriterProcess && cfg.InFlight > 0, cfg.writerInFlight(w))
		if err != nil {
			return err
		}
		r.credits = append(r.credits, creditPipe{cr, cw})
	}
	if r.proc == nil {
		return nil
	}
	cr := r.credits[0].r
	stop, fd, err := tokens.NewSharedFlag()
	if err != nil {
		return err
	}
	r.wstop = stop
	err = r.proc.sendCreditFDs(int(cr), fd)
	unix.Close(fd)
	if err != nil {
		return r.procErr(err)
	}
	unix.Close(int(cr))
	r.credits[0].r = -1
	return nil
}

// awaitWriterProcess waits until a writer process holds every write end,
// and keeps its writing thread's id.
func (r *run) awaitWriterProcess() error {
	if r.proc == nil {
		return nil
	}
	body, err := r.proc.await(msgReady, 60*time.Second, r.hooks.Stop)
	if errors.Is(err, ErrInterrupted) {
		return err
	}
	if err != nil {
		return fmt.Errorf("writer process setup: %w", err)
	}
	var ready writerReady
	if err := json.Unmarshal(body, &ready); err != nil {
		return fmt.Errorf("decode writer process ready message: %w", err)
	}
	r.obs.writerTID = ready.TID
	return nil
}

// makePipes makes every pipe, registers its read end and sends write ends
// to the writer process in batches, so that no process ever holds more than
// its plan.
func (r *run) makePipes() error {
	fdlimit.GrowTable(r.plan.ReaderFDs)
	n := r.cfg.Pipes
	r.rfds = make([]int32, 0, n)
	if r.proc == nil {
		r.wfds = make([]int32, 0, n)
	}
	ch, err := newChannels(r.cfg.Source)
	if err != nil {
		return err
	}
	defer ch.close()
	shared := r.cfg.Source.shared()
	var toSend []int
	k, lo, hi := 0, 0, 0 // the reader whose part holds pipe i, and its part
	_, hi = r.cfg.part(0)
	flush := func() error {
		if len(toSend) == 0 {
			return nil
		}
		err := r.proc.sendFDs(toSend)
		if !shared {
			// The writer process has its own copies now.
			for _, fd := range toSend {
				unix.Close(fd)
			}
		}
		toSend = toSend[:0]
		if err != nil {
			return r.procErr(err)
		}
		return nil
	}
	for i := range n {
		var p [2]int
		var err error
		if p[0], p[1], err = ch.open(); err != nil {
			open, _ := fdlimit.OpenFDs()
			return fmt.Errorf("make %s %d of %d (%d descriptors open, limit %d): %w", r.cfg.Source, i+1, n, open, r.plan.Limit, err)
		}
		r.rfds = append(r.rfds, int32(p[0]))
		if r.proc == nil {
			r.wfds = append(r.wfds, int32(p[1]))
		} else {
			toSend = append(toSend, p[1])
			if len(toSend) == child.MaxFDs {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		if r.follows() {
			// The bypass waits for the next token in a read of its pipe.
			if err := unix.SetNonblock(p[0], false); err != nil {
				return fmt.Errorf("make %s %d (fd %d) blocking for the bypass: %w", r.cfg.Source.noun(), i, p[0], err)
			}
		}
		for i >= hi {
			k++
			lo, hi = r.cfg.part(k)
		}
		if err := r.bes[k].Add(p[0], int32(i-lo)); err != nil {
			return fmt.Errorf("register pipe %d (fd %d) with %s%s: %w", i, p[0], r.cfg.Backend.Name, r.readerName(k), err)
		}
	}
	if r.proc != nil {
		return flush()
	}
	return nil
}

// arm runs an Armer's Arm, on the reader thread of reader k before the
// window opens, and adds how long it took to the setup's time.
func (r *run) arm(k int) error {
	a, ok := r.bes[k].(Armer)
	if !ok {
		return nil
	}
	t0 := time.Now()
	err := a.Arm()
	r.armTook.Add(int64(time.Since(t0)))
	if err != nil {
		return fmt.Errorf("arm %s on the reader thread%s: %w", r.cfg.Backend.Name, r.readerName(k), err)
	}
	return nil
}

// follows says whether the backend follows a writer process's route,
// reading each pipe in blocking reads (FollowsRoute: the bypass).
func (r *run) follows() bool {
	return r.cfg.Backend != nil && r.cfg.Backend.Features.Has(FollowsRoute) && r.plan.Writer == WriterProcess
}

// readerName names reader k in messages when there are several: " (reader
// 2 of 4)".
func (r *run) readerName(k int) string {
	if r.cfg.Readers == 1 {
		return ""
	}
	return fmt.Sprintf(" (reader %d of %d)", k, r.cfg.Readers)
}

// openBackend opens reader k's backend instance, sized for its part of
// the pipes: the Loop (one reader), or a Mechanism; with Config.Share,
// readers after the first get a share of the first's Mechanism.
func (r *run) openBackend(k int) (Interest, error) {
	cfg := &r.cfg
	lo, hi := cfg.part(k)
	o := Options{Pipes: hi - lo, MaxFD: int(r.plan.Limit) - 1, Nest: cfg.Nest, MinWait: cfg.MinWait}
	if cfg.Backend.IsLoop() {
		l, err := cfg.Backend.OpenLoop(o)
		r.loop = l
		return l, err
	}
	var m Mechanism
	var err error
	if cfg.Share && k > 0 {
		s, ok := r.mechs[0].(Sharer)
		if !ok {
			return nil, fmt.Errorf("backend %s declares Shares but is no Sharer", cfg.Backend.Name)
		}
		m, err = s.Share()
	} else {
		m, err = cfg.Backend.Open(o)
	}
	if err != nil {
		return nil, err
	}
	r.mechs = append(r.mechs, m)
	return m, nil
}

// maxEvents is the length of reader k's ready slice: Config.MaxEvents, or
// its part of the pipes.
func (r *run) maxEvents(k int) int {
	if r.cfg.MaxEvents > 0 {
		return r.cfg.MaxEvents
	}
	lo, hi := r.cfg.part(k)
	return hi - lo
}

// goroutines says whether the backend reads on goroutines of its own.
func (r *run) goroutines() bool { return r.cfg.Backend.Features.Has(Goroutines) }

// read runs the reading side for the measured window: a Loop (the
// bypass, gonet, uring-rw), or the reader's loop over Wait.
func (r *run) read(rd *reader) error {
	cfg := &r.cfg
	if r.plan.Writer == WriterSelf && cfg.Latency {
		if err := r.prime(); err != nil {
			return err
		}
	}
	if r.loop != nil {
		return r.runLoop(r.loop, rd) // driver.go: the backend reads, no readiness call
	}
	return rd.loop()
}

// primeSeed seeds the route that places the self mode's tokens in their
// first pipes, apart from the route they then take (the bypass follows
// them from there).
const primeSeed = 0x5eed

// prime writes the self mode's tokens into their first pipes. In latency
// mode the reader thread does it when the window opens, so that the tokens'
// stamps do not count the setup.
func (r *run) prime() error {
	cfg := &r.cfg
	route := tokens.NewRouter(cfg.Route, cfg.RouteSeed^primeSeed, cfg.Pipes)
	format := cfg.format()
	var buf [8]byte
	for range cfg.InFlight {
		j := route.Pick()
		tok := format.Next(&buf)
		if n, e := tokens.Write(r.wfds[j], tok).Split(); e != 0 || n != len(tok) {
			return fmt.Errorf("prime token into %s %d: %w", cfg.Source.noun(), j, tokens.WriteErr(n, len(tok), e))
		}
		r.primed++
	}
	return nil
}

// procErr names the writer process's exit, when it has exited, as the cause.
func (r *run) procErr(err error) error {
	if cause, ok := r.proc.exitCause(time.Second); ok {
		return fmt.Errorf("%s: %w", cause, err)
	}
	return err
}

func (r *run) replaceErr(err error) { r.ending.Replace(err) }

// enterThread locks the calling goroutine to its OS thread, labels it for
// the CPU profile, pins it to cpu when -cpu asks (cpu >= 0) and sends its
// thread id on tid. The caller defers leave: it gives a pinned thread its
// affinity back and unlocks the thread. A thread whose affinity cannot be
// given back stays locked and ends with its goroutine rather than go back
// to the runtime's pool narrowed. Threads must not end otherwise: a writer
// process dies with the thread that started it (Pdeathsig), and the runtime
// may have started it on any of its threads.
func (r *run) enterThread(role string, cpu int, tid chan<- int) (leave func()) {
	runtime.LockOSThread()
	r.labelGoroutine(role)
	leave = runtime.UnlockOSThread
	if cpu >= 0 {
		restore, err := osthread.Pin(cpu)
		if err != nil {
			r.fail(err)
		} else {
			leave = func() {
				if err := restore(); err != nil {
					r.fail(err)
					return // stays locked: the thread ends with the goroutine
				}
				runtime.UnlockOSThread()
			}
		}
	}
	tid <- unix.Gettid()
	return leave
}

// ctlNow is the backends' ctl count so far.
func (r *run) ctlNow() uint64 {
	var n uint64
	for _, be := range r.bes {
		n += be.CtlCalls()
	}
	return n
}

// release closes everything the run opened; it is safe on a half-made run.
func (r *run) release() {
	for _, be := range r.bes {
		be.Close()
	}
	r.end()
	r.wstop.Unmap()
	for _, fd := range r.rfds {
		unix.Close(int(fd))
	}
	if !r.cfg.Source.shared() {
		for _, fd := range r.wfds {
			unix.Close(int(fd))
		}
	}
	for _, c := range r.credits {
		for _, fd := range []int32{c.r, c.w} {
			if fd >= 0 {
				unix.Close(int(fd))
			}
		}
	}
	if r.proc != nil {
		r.proc.close(5 * time.Second)
	}
}
