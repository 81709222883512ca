package pipebench

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/internal/fdlimit"
	"github.com/pipebench/pipebench/internal/osthread"
	"github.com/pipebench/pipebench/internal/tokens"
)

// The writer process is this same binary started again with writerEnv set;
// its control socket is descriptor 3.
const (
	writerEnv = "PIPEBENCH_WRITER_PROCESS"
	writerFD  = 3
)

// RunWriterProcessIfAsked runs the writer side and exits when this process
// was started as a writer process. Every binary that runs benchmarks in
// process mode (the command, test binaries) calls it first thing in main or
// TestMain.
func RunWriterProcessIfAsked() {
	servesWriter.Store(true)
	if os.Getenv(writerEnv) == "" {
		return
	}
	if err := writerProcessMain(writerFD); err != nil {
		fmt.Fprintf(os.Stderr, "pipebench writer process: %v\n", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// servesWriter is set once RunWriterProcessIfAsked has been called.
var servesWriter atomic.Bool

// ServesAsWriterProcess reports whether this binary called
// RunWriterProcessIfAsked, and so may run in process mode: started again
// as its own writer process, it becomes one.
func ServesAsWriterProcess() bool { return servesWriter.Load() }

func writerProcessMain(ctl int) (err error) {
	runtime.LockOSThread()
	defer func() {
		if err != nil {
			// Best effort: the reader learns the cause; it also sees the exit.
			_ = sendMsg(ctl, msgError, writerReport{Error: err.Error()}, nil)
		}
	}()
	if _, err := fdlimit.RaiseFileLimit(); err != nil {
		return err
	}
	s, err := recvSetup(ctl)
	if err != nil {
		return err
	}
	cfg := Config{Latency: s.Latency, Source: s.Source}
	w := tokens.Writer{WFDs: make([]int32, s.Pipes), Route: tokens.NewRouter(s.Route, s.Seed, s.Pipes), InFlight: s.InFlight,
		Credits: -1, Alone: true, Format: cfg.format()}
	if s.CPU >= 0 {
		if _, err := osthread.Pin(s.CPU); err != nil { // the process ends with its writer
			return fmt.Errorf("writer process: %w", err)
		}
	}
	stop, err := recvDescriptors(ctl, s.Pipes, &w)
	defer stop.Unmap()
	if err != nil {
		return err
	}
	if err := sendMsg(ctl, msgReady, writerReady{TID: unix.Gettid()}, nil); err != nil {
		return err
	}
	kind, _, _, err := recvMsg(ctl, -1)
	if err != nil {
		return err
	}
	if kind != msgStart {
		return fmt.Errorf("expected start, got %s", msgName(kind))
	}
	if err := writeAndReport(ctl, &w, s.CloseAtStop); err != nil {
		return err
	}
	// Keep the write ends open until the reader has drained the pipes and
	// closed the control socket: a pipe whose writer is gone reads as end
	// of file, which the reader takes for the writer's death.
	_, _, _, _ = recvMsg(ctl, -1)
	return nil
}

// recvSetup reads the reader's setup message.
func recvSetup(ctl int) (writerSetup, error) {
	var s writerSetup
	kind, body, _, err := recvMsg(ctl, -1)
	if err != nil {
		return s, err
	}
	if kind != msgSetup {
		return s, fmt.Errorf("expected a setup message, got %s", msgName(kind))
	}
	if err := json.Unmarshal(body, &s); err != nil {
		return s, fmt.Errorf("decode setup: %w", err)
	}
	return s, nil
}

// recvDescriptors receives the write ends of pipes pipes, in batches, and
// the credit pipe's read end with the stop flag, into w. The stop flag's
// mapping is returned, for the caller to unmap.
func recvDescriptors(ctl, pipes int, w *tokens.Writer) (*tokens.SharedFlag, error) {
	var stop *tokens.SharedFlag
	got := 0
	for got < pipes || w.Credits < 0 {
		kind, body, fds, err := recvMsg(ctl, -1)
		if err != nil {
			return stop, err
		}
		if kind != msgFDs {
			return stop, fmt.Errorf("expected descriptors, got %s", msgName(kind))
		}
		var b fdBatch
		if err := json.Unmarshal(body, &b); err != nil {
			return stop, fmt.Errorf("decode descriptor batch: %w", err)
		}
		if b.Credit {
			if len(fds) != 2 {
				return stop, fmt.Errorf("credit batch carried %d descriptors, want the credit pipe and the stop flag", len(fds))
			}
			w.Credits = int32(fds[0])
			stop, err = tokens.MapSharedFlag(fds[1])
			unix.Close(fds[1])
			if err != nil {
				return stop, err
			}
			w.Stop = stop.Flag
			continue
		}
		if b.First != got || b.First+len(fds) > pipes {
			return stop, fmt.Errorf("descriptor batch for pipes %d..%d out of order (have %d of %d)", b.First, b.First+len(fds), got, pipes)
		}
		for i, fd := range fds {
			w.WFDs[b.First+i] = int32(fd)
		}
		got += len(fds)
	}
	return stop, nil
}

// writeAndReport runs the writer until the window closes and sends the
// reader its report: its counts and usage. closeAtStop closes the write
// ends once the writer has stopped, before the report.
func writeAndReport(ctl int, w *tokens.Writer, closeAtStop bool) error {
	// The writing thread keeps its P while it waits for credits
	// (internal/osthread).
	_, release := osthread.LendPs(1)
	defer release()
	th := osthread.StartUsage(unix.RUSAGE_THREAD)
	pr := osthread.StartUsage(unix.RUSAGE_SELF)
	if err := w.Run(); err != nil {
		return err
	}
	rep := writerReport{WriterCounts: w.Counts}
	var err error
	if rep.Thread, err = th.Stop(); err != nil {
		return err
	}
	if rep.Process, err = pr.Stop(); err != nil {
		return err
	}
	if closeAtStop {
		for i, fd := range w.WFDs {
			if err := unix.Close(int(fd)); err != nil {
				return fmt.Errorf("close write end of pipe %d (fd %d) at stop: %w", i, fd, err)
			}
		}
	}
	return sendMsg(ctl, msgReport, rep, nil)
}

// writerProcess is the reader's handle on its writer process.
type writerProcess struct {
	cmd  *exec.Cmd
	ctl  int
	done chan struct{} // closed when the process has exited
	mu   sync.Mutex
	exit error // why it exited, once done is closed
}

// startWriterProcess starts this binary again as a writer process.
func startWriterProcess() (*writerProcess, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find own executable for the writer process: %w", err)
	}
	sp, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("make control socketpair: %w", err)
	}
	childEnd := os.NewFile(uintptr(sp[1]), "pipebench-control")
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), writerEnv+"=1")
	cmd.ExtraFiles = []*os.File{childEnd}
	cmd.Stderr = os.Stderr
	// Its own process group keeps a terminal's ^C away from it: the reader
	// stops it in order. Pdeathsig ends it if the reader dies.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		childEnd.Close()
		unix.Close(sp[0])
		return nil, fmt.Errorf("start writer process %s: %w", exe, err)
	}
	childEnd.Close()
	p := &writerProcess{cmd: cmd, ctl: sp[0], done: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		p.mu.Lock()
		p.exit = err
		if err == nil {
			p.exit = errors.New("exited with status 0")
		}
		p.mu.Unlock()
		close(p.done)
	}()
	return p, nil
}

// exitCause describes how the process ended, waiting up to wait for it.
func (p *writerProcess) exitCause(wait time.Duration) (string, bool) {
	select {
	case <-p.done:
	default:
		// Not yet: wait for it (a select on both would pick at random
		// when wait is 0 and the process has just exited).
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-p.done:
		case <-t.C:
			return "", false
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return fmt.Sprintf("writer process %d %v", p.cmd.Process.Pid, p.exit), true
}

func (p *writerProcess) setup(s writerSetup) error { return sendMsg(p.ctl, msgSetup, s, nil) }

func (p *writerProcess) sendFDs(first int, fds []int) error {
	return sendMsg(p.ctl, msgFDs, fdBatch{First: first}, fds)
}

// sendCreditFDs sends the credit pipe's read end and the stop flag's memfd.
func (p *writerProcess) sendCreditFDs(credit, stop int) error {
	return sendMsg(p.ctl, msgFDs, fdBatch{Credit: true}, []int{credit, stop})
}

// await reads the next message, which must be of kind want. A failure or
// death of the writer becomes an error naming the cause.
//
// It waits in slices of 100 ms, so that it returns at once when the process
// exits or stop is closed (stop may be nil), and gives up after timeout.
func (p *writerProcess) await(want byte, timeout time.Duration, stop <-chan struct{}) ([]byte, error) {
	const slice = 100 * time.Millisecond
	deadline := time.Now().Add(timeout)
	var (
		kind byte
		body []byte
		err  error
	)
	for {
		kind, body, _, err = recvMsg(p.ctl, slice)
		if !errors.Is(err, errNoMessage) {
			break
		}
		select {
		case <-stop:
			return nil, ErrInterrupted
		case <-p.done:
			cause, _ := p.exitCause(0)
			return nil, fmt.Errorf("%s", cause)
		default:
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("writer process %d sent nothing for %v (stopped?)", p.cmd.Process.Pid, timeout)
		}
	}
	if err != nil {
		if cause, ok := p.exitCause(time.Second); ok {
			return nil, fmt.Errorf("%s: %w", cause, err)
		}
		return nil, err
	}
	switch kind {
	case want:
		return body, nil
	case msgError:
		var r writerReport
		_ = json.Unmarshal(body, &r)
		return nil, fmt.Errorf("writer process %d failed: %s", p.cmd.Process.Pid, r.Error)
	}
	return nil, fmt.Errorf("writer process sent a %s message, expected %s", msgName(kind), msgName(want))
}

// close ends the process (killing it if it has not exited within wait) and
// releases the control socket.
func (p *writerProcess) close(wait time.Duration) {
	// Closing the control socket is what lets a finished writer exit.
	unix.Close(p.ctl)
	select {
	case <-p.done:
	case <-time.After(wait):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// kill ends the process now.
func (p *writerProcess) kill() { _ = p.cmd.Process.Kill() }
