package herd

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A waiter process is this binary started again with waiterEnv set to its
// waiterSpec. Its descriptors are in fixed places: the shared counts, its stop
// eventfd, the credit pipe's write end, then every pipe's read end
// in order. They are handed over by fork/exec itself (the same open files,
// so the same pipes and wait queues), never as os.File: an os.File would
// register a non-blocking pipe with the Go runtime's own epoll, one more
// waiter on every pipe.
const (
	waiterEnv   = "PIPEBENCH_HERD_WAITER"
	countsFD    = 3
	stopFD      = 4
	creditFD    = 5
	firstPipeFD = 6
)

type waiterSpec struct {
	Index     int           `json:"index"`
	Waiters   int           `json:"waiters"`
	Pipes     int           `json:"pipes"`
	Exclusive bool          `json:"exclusive"`
	Timeout   time.Duration `json:"timeout_ns"`
}

// RunWaiterProcessIfAsked runs a herd waiter and exits when this process
// was started as one. Every binary that runs the herd with Mode Processes
// (the command, test binaries) calls it first thing in main or TestMain.
func RunWaiterProcessIfAsked() {
	env := os.Getenv(waiterEnv)
	if env == "" {
		return
	}
	if err := waiterProcessMain(env); err != nil {
		fmt.Fprintf(os.Stderr, "pipebench herd waiter process %d: %v\n", os.Getpid(), err)
		os.Exit(1)
	}
	os.Exit(0)
}

func waiterProcessMain(env string) error {
	runtime.LockOSThread()
	var s waiterSpec
	if err := json.Unmarshal([]byte(env), &s); err != nil {
		return fmt.Errorf("decode %s: %w", waiterEnv, err)
	}
	if s.Waiters < 1 || s.Index < 0 || s.Index >= s.Waiters || s.Pipes < 1 {
		return fmt.Errorf("bad waiter spec %s", env)
	}
	b, err := mapSharedCounts(countsFD, s.Waiters)
	if err != nil {
		return err
	}
	rfds := make([]int32, s.Pipes)
	for i := range rfds {
		rfds[i] = int32(firstPipeFD + i)
	}
	w, err := newWaiter(rfds, stopFD, creditFD, s.Exclusive, s.Timeout, &b.waiters[s.Index])
	if err != nil {
		return err
	}
	defer w.close()
	return w.serve(unix.Getpid())
}

// waiterProcess is the measuring process's handle on one waiter process.
type waiterProcess struct {
	pid    int
	exited bool
	status unix.WaitStatus
}

// startWaiterProcess starts waiter process spec.Index with the descriptors in their
// places.
func startWaiterProcess(exe string, spec waiterSpec, counts int, stop, credit int32, rfds []int32) (*waiterProcess, error) {
	j, err := json.Marshal(spec)
	if err != nil {
		return nil, fmt.Errorf("encode waiter spec: %w", err)
	}
	files := make([]uintptr, 0, firstPipeFD+len(rfds))
	files = append(files, 0, 1, 2, uintptr(counts), uintptr(stop), uintptr(credit))
	for _, fd := range rfds {
		files = append(files, uintptr(fd))
	}
	pid, err := syscall.ForkExec(exe, []string{exe}, &syscall.ProcAttr{
		Env:   childEnv(string(j)),
		Files: files,
		// Its own process group keeps a terminal's ^C away from it: the
		// measuring process stops it in order. Pdeathsig ends it if the
		// measuring process dies.
		Sys: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		return nil, fmt.Errorf("start waiter process %d (%s): %w", spec.Index, exe, err)
	}
	return &waiterProcess{pid: pid}, nil
}

// childEnv is this process's environment with the waiter's spec, and
// GOMAXPROCS=2: a waiter is one locked thread, but with a P to spare the
// Go scheduler leaves its P alone while it sleeps in epoll_wait, instead of
// handing it off (and waking another thread) after 20µs.
func childEnv(spec string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, waiterEnv+"=") && !strings.HasPrefix(kv, "GOMAXPROCS=") {
			env = append(env, kv)
		}
	}
	return append(env, waiterEnv+"="+spec, "GOMAXPROCS=2")
}

// reap reports, without blocking, whether the process has exited.
func (c *waiterProcess) reap() (bool, error) {
	if c.exited {
		return true, nil
	}
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(c.pid, &ws, unix.WNOHANG, nil)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return false, fmt.Errorf("wait for waiter process %d: %w", c.pid, err)
		case pid == c.pid:
			c.exited, c.status = true, ws
			return true, nil
		}
		return false, nil
	}
}

// kill ends the process and reaps it.
func (c *waiterProcess) kill() {
	if c.exited {
		return
	}
	_ = unix.Kill(c.pid, unix.SIGKILL)
	for {
		var ws unix.WaitStatus
		_, err := unix.Wait4(c.pid, &ws, 0, nil)
		if err == unix.EINTR {
			continue
		}
		c.exited, c.status = true, ws
		return
	}
}

// failed describes an exit that was not a clean one, or returns "".
func (c *waiterProcess) failed() string {
	switch {
	case !c.exited:
		return ""
	case c.status.Signaled():
		return fmt.Sprintf("waiter process %d was killed by %s", c.pid, unix.SignalName(c.status.Signal()))
	case c.status.ExitStatus() != 0:
		return fmt.Sprintf("waiter process %d exited with status %d", c.pid, c.status.ExitStatus())
	}
	return ""
}
