package child

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Process is a parent's handle on one child: its control socket (the
// embedded Conn) and its exit. The parent holds two descriptors per child:
// the socket and the child's pidfd.
type Process struct {
	*Conn
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
	mu   sync.Mutex
	exit error // how it exited (nil: status 0), once done is closed
}

// Start starts this binary again as a child in role, with env added to (and
// overriding) this process's environment, and sends it config as its first
// message. The child runs in its own process group, so that a terminal's ^C
// does not reach it (its parent stops it in order), and is killed if its
// parent dies.
func Start(role string, config any, env ...string) (*Process, error) {
	r, err := lookup(role)
	if err != nil {
		return nil, err
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find own executable for the %s process: %w", role, err)
	}
	// A blocking socket: os.NewFile leaves it out of the Go runtime's poller.
	sp, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("make control socketpair for the %s process: %w", role, err)
	}
	childEnd := os.NewFile(uintptr(sp[1]), "pipebench-control")
	cmd := exec.Command(exe)
	cmd.Env = environ(append([]string{roleEnv + "=" + role}, env...))
	cmd.ExtraFiles = []*os.File{childEnd}
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	err = cmd.Start()
	childEnd.Close()
	if err != nil {
		unix.Close(sp[0])
		return nil, fmt.Errorf("start %s process %s: %w", role, exe, err)
	}
	p := &Process{
		Conn: &Conn{fd: sp[0], role: r, peer: fmt.Sprintf("%s process %d", role, cmd.Process.Pid)},
		cmd:  cmd, done: make(chan struct{}),
	}
	go func() {
		err := cmd.Wait()
		p.mu.Lock()
		p.exit = err
		p.mu.Unlock()
		close(p.done)
	}()
	if err := p.Send(kindConfig, config); err != nil {
		p.Kill()
		p.Close(0)
		return nil, err
	}
	return p, nil
}

// environ is this process's environment with set's variables replacing any
// of the same names.
func environ(set []string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(kv, roleEnv+"=") && !setsVar(set, name) {
			env = append(env, kv)
		}
	}
	return append(env, set...)
}

func setsVar(set []string, name string) bool {
	for _, kv := range set {
		if n, _, _ := strings.Cut(kv, "="); n == name {
			return true
		}
	}
	return false
}

// Pid is the child's process ID.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Done is closed when the child has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exited describes how the child ended, waiting up to wait for it; false
// if it still runs.
func (p *Process) Exited(wait time.Duration) (string, bool) {
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
	if p.exit == nil {
		return p.peer + " exited with status 0", true
	}
	return fmt.Sprintf("%s %v", p.peer, p.exit), true
}

// Clean reports whether the child has exited with status 0.
func (p *Process) Clean() bool {
	select {
	case <-p.done:
	default:
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exit == nil
}

// Await reads the next message, which must be of kind want, and returns
// its body. The child's failure or death becomes an error naming the
// cause. It waits in slices of 100 ms, so that it returns at once when the
// child exits or stop is closed (ErrStopped; stop may be nil), and gives up
// after timeout.
func (p *Process) Await(want Kind, timeout time.Duration, stop <-chan struct{}) ([]byte, error) {
	const slice = 100 * time.Millisecond
	deadline := time.Now().Add(timeout)
	for {
		k, body, fds, err := p.recv(slice)
		closeAll(fds)
		if errors.Is(err, errNoMessage) {
			select {
			case <-stop:
				return nil, ErrStopped
			case <-p.done:
				cause, _ := p.Exited(0)
				return nil, errors.New(cause)
			default:
			}
			if time.Now().After(deadline) {
				return nil, fmt.Errorf("%s sent nothing for %v (stopped?)", p.peer, timeout)
			}
			continue
		}
		if err != nil {
			if cause, ok := p.Exited(time.Second); ok {
				return nil, fmt.Errorf("%s: %w", cause, err)
			}
			return nil, err
		}
		if k != want {
			return nil, p.unexpected(k, want, body)
		}
		return body, nil
	}
}

// Close releases the control socket, which is what lets a child that has
// finished its work exit, and waits up to wait for it to exit, killing it
// if it has not.
func (p *Process) Close(wait time.Duration) {
	if p.fd >= 0 {
		unix.Close(p.fd)
		p.fd = -1
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		p.Kill()
		<-p.done
	}
}

// Kill ends the child now, without waiting.
func (p *Process) Kill() { _ = p.cmd.Process.Kill() }
