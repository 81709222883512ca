package pipebench

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/internal/child"
	"github.com/pipebench/pipebench/internal/fdlimit"
	"github.com/pipebench/pipebench/internal/osthread"
	"github.com/pipebench/pipebench/internal/tokens"
)

// The writer process is this same binary started again as a child
// (internal/child) in role writerRole: its configuration is a writerSetup,
// then come the credit pipe's read end and the stop flag's memfd, then the
// write ends in pipe order.
const writerRole = "writer"

func init() {
	child.Register(child.Role{Name: writerRole, Serve: writerProcessMain, Kinds: msgNames})
}

func writerProcessMain(ctl *child.Conn) error {
	runtime.LockOSThread()
	if _, err := fdlimit.RaiseFileLimit(); err != nil {
		return err
	}
	var s writerSetup
	if err := ctl.Config(&s); err != nil {
		return err
	}
	load := Workload{Latency: s.Latency, Source: s.Source}
	w := tokens.Writer{WFDs: make([]int32, s.Pipes), Route: tokens.NewRouter(s.Route, s.RouteSeed, s.Pipes), InFlight: s.InFlight,
		Credits: -1, Alone: true, Format: load.format()}
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
	if err := ctl.Send(msgReady, writerReady{TID: unix.Gettid()}); err != nil {
		return err
	}
	body, err := ctl.Expect(msgStart)
	if err != nil {
		return err
	}
	if s.Rate > 0 {
		var st writerStart
		if err := json.Unmarshal(body, &st); err != nil {
			return fmt.Errorf("writer process: decode start message: %w", err)
		}
		w.Pace = tokens.NewPace(tokens.Schedule{T0: st.T0, Rate: s.Rate}, 0, 1)
	}
	if err := writeAndReport(ctl, &w, s.CloseAtStop); err != nil {
		return err
	}
	// Keep the write ends open until the reader has drained the pipes and
	// closed the control socket: a pipe whose writer is gone reads as end
	// of file, which the reader takes for the writer's death.
	ctl.WaitClosed()
	return nil
}

// recvDescriptors receives the credit pipe's read end and the stop flag,
// then the write ends of pipes pipes, into w. The stop flag's mapping is
// returned, for the caller to unmap.
func recvDescriptors(ctl *child.Conn, pipes int, w *tokens.Writer) (*tokens.SharedFlag, error) {
	fds, err := ctl.RecvFDs(2)
	if err != nil {
		return nil, err
	}
	w.Credits = int32(fds[0])
	stop, err := tokens.MapSharedFlag(fds[1])
	unix.Close(fds[1])
	if err != nil {
		return stop, err
	}
	w.Stop = stop.Flag
	if fds, err = ctl.RecvFDs(pipes); err != nil {
		return stop, err
	}
	for i, fd := range fds {
		w.WFDs[i] = int32(fd)
	}
	return stop, nil
}

// writeAndReport runs the writer until the window closes and sends the
// reader its report: its counts and usage. closeAtStop closes the write
// ends once the writer has stopped, before the report.
func writeAndReport(ctl *child.Conn, w *tokens.Writer, closeAtStop bool) error {
	// The writing thread keeps its P while it waits for credits
	// (internal/osthread).
	_, release := osthread.LendPs(1)
	defer release()
	th := osthread.StartUsage(unix.RUSAGE_THREAD)
	pr := osthread.StartUsage(unix.RUSAGE_SELF)
	if err := w.Run(); err != nil {
		return err
	}
	rep := writerReport{WriterCounts: w.Counts, LastTick: w.LastTick}
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
	return ctl.Send(msgReport, rep)
}

// writerProcess is the reader's handle on its writer process.
type writerProcess struct{ *child.Process }

// startWriterProcess starts this binary again as a writer process, told s.
func startWriterProcess(s writerSetup) (*writerProcess, error) {
	p, err := child.Start(writerRole, s)
	if err != nil {
		return nil, err
	}
	return &writerProcess{p}, nil
}

// exitCause describes how the process ended, waiting up to wait for it.
func (p *writerProcess) exitCause(wait time.Duration) (string, bool) { return p.Exited(wait) }

func (p *writerProcess) sendFDs(fds []int) error { return p.SendFDs(fds) }

// sendCreditFDs sends the credit pipe's read end and the stop flag's memfd.
func (p *writerProcess) sendCreditFDs(credit, stop int) error { return p.SendFDs([]int{credit, stop}) }

// await reads the next message, which must be of kind want. A failure or
// death of the writer becomes an error naming the cause; a closed stop
// (which may be nil) is ErrInterrupted.
func (p *writerProcess) await(want child.Kind, timeout time.Duration, stop <-chan struct{}) ([]byte, error) {
	body, err := p.Await(want, timeout, stop)
	if errors.Is(err, child.ErrStopped) {
		return nil, ErrInterrupted
	}
	return body, err
}

// close ends the process (killing it if it has not exited within wait) and
// releases the control socket.
func (p *writerProcess) close(wait time.Duration) { p.Close(wait) }

// kill ends the process now.
func (p *writerProcess) kill() { p.Kill() }
