package profile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	pprof "github.com/google/pprof/profile"
)

// Package is the Debian package that installs perf.
const Package = "linux-perf"

// recordArgs are perf record's arguments besides the targets: call graphs
// of the cpu-clock event (hardware counters are often missing in virtual
// machines), no build-id work or cache at the end (the binaries are read in
// place, at once), no BPF side-band thread (it delays perf's exit by up to a
// second). Its messages are kept for errors.
var recordArgs = []string{"record", "-g", "-e", "cpu-clock", "-B", "-N", "--no-bpf-event"}

// ackTimeout bounds the wait for perf to start or stop recording.
const ackTimeout = 30 * time.Second

// Check says whether perf is installed and may record kernel stacks here,
// by recording `true` with the arguments Start uses. Its error names the
// package to install, or says what perf answered.
func Check() error {
	path, err := exec.LookPath("perf")
	if err != nil {
		return fmt.Errorf("perf is not installed (install the package %s)", Package)
	}
	dir, err := os.MkdirTemp("", "pipebench-perf-check")
	if err != nil {
		return fmt.Errorf("check perf: %w", err)
	}
	defer os.RemoveAll(dir)
	args := append(append([]string{}, recordArgs...), "-o", filepath.Join(dir, "check.data"), "--", "true")
	out, err := exec.Command(path, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("perf cannot record kernel stacks here (%s; the package %s must match the kernel, and perf_event_paranoid must allow it or run as root)", said(out, err), Package)
	}
	return nil
}

// said is what perf printed, less its progress lines, on one line; err
// when it printed nothing else.
func said(out []byte, err error) string {
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || l == "Events enabled" || l == "Events disabled" || strings.HasPrefix(l, "[ perf record:") {
			continue
		}
		lines = append(lines, l)
	}
	if len(lines) == 0 {
		return fmt.Sprint(err)
	}
	return strings.Join(lines, "; ")
}

// Recorder is one `perf record` of running processes.
type Recorder struct {
	cmd    *exec.Cmd
	args   []string // perf's arguments but the temporary output file
	exe    string   // the first process's executable
	raw    bool     // perf script prints user frames at their addresses
	dir    string
	data   string
	ctl    *os.File // we write commands here
	ack    *bufio.Reader
	ackF   *os.File
	stderr bytes.Buffer
	done   chan struct{} // closed when perf has exited
	err    error         // how perf exited, once done
}

// Start records the given processes (all their threads at this moment)
// with events disabled, then enables them and waits for perf's
// acknowledgement, so that whatever follows Start is covered. The first
// process is the main one: its executable is the profile's main binary.
func Start(pids []int) (*Recorder, error) {
	if len(pids) == 0 {
		return nil, errors.New("perf record: no process to record")
	}
	path, err := exec.LookPath("perf")
	if err != nil {
		return nil, fmt.Errorf("perf is not installed (install the package %s)", Package)
	}
	// perf's mmap events and /proc name a file alike (the kernel's d_path).
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pids[0]))
	if err != nil {
		return nil, fmt.Errorf("perf record: executable of process %d: %w", pids[0], err)
	}
	raw, err := scriptPrintsAddresses(path)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "pipebench-perf")
	if err != nil {
		return nil, fmt.Errorf("perf record: %w", err)
	}
	r := &Recorder{exe: exe, raw: raw, dir: dir, data: filepath.Join(dir, "perf.data"), done: make(chan struct{})}
	ok := false
	defer func() {
		if !ok {
			r.Close()
		}
	}()
	// perf reads commands on descriptor 3 and acknowledges them on 4.
	ctlR, ctlW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("perf record control pipe: %w", err)
	}
	ackR, ackW, err := os.Pipe()
	if err != nil {
		ctlR.Close()
		ctlW.Close()
		return nil, fmt.Errorf("perf record control pipe: %w", err)
	}
	r.ctl, r.ackF, r.ack = ctlW, ackR, bufio.NewReader(ackR)
	ids := make([]string, len(pids))
	for i, pid := range pids {
		ids[i] = strconv.Itoa(pid)
	}
	r.args = append(append([]string{}, recordArgs...), "-D", "-1", "--control", "fd:3,4", "-p", strings.Join(ids, ","))
	r.cmd = exec.Command(path, append(r.args, "-o", r.data)...)
	r.cmd.ExtraFiles = []*os.File{ctlR, ackW}
	r.cmd.Stdout, r.cmd.Stderr = &r.stderr, &r.stderr
	// Its own process group keeps a terminal's ^C away from it: the caller
	// stops it in order. No Pdeathsig: it fires when the forking thread
	// ends, which in Go may be any time; perf ends by itself when the
	// processes it records are gone.
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = r.cmd.Start()
	ctlR.Close()
	ackW.Close()
	if err != nil {
		return nil, fmt.Errorf("start perf record: %w", err)
	}
	go func() {
		r.err = r.cmd.Wait()
		close(r.done)
	}()
	if err := r.command("enable"); err != nil {
		return nil, fmt.Errorf("perf record did not start: %w", err)
	}
	ok = true
	return r, nil
}

// scriptPrintsAddresses asks perf its version, which tells how its script
// prints user frames (see Options.RunTimeAddresses).
func scriptPrintsAddresses(path string) (bool, error) {
	out, err := exec.Command(path, "version").Output()
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) && len(ee.Stderr) > 0 {
		return false, fmt.Errorf("perf version: %w: %s", err, said(ee.Stderr, err))
	} else if err != nil {
		return false, fmt.Errorf("perf version: %w", err)
	}
	return printsAddresses(string(out))
}

// command sends one control command and waits for its acknowledgement.
func (r *Recorder) command(c string) error {
	if _, err := r.ctl.WriteString(c + "\n"); err != nil {
		return r.exited(fmt.Errorf("send %s: %w", c, err))
	}
	if err := r.ackF.SetReadDeadline(time.Now().Add(ackTimeout)); err != nil {
		return fmt.Errorf("wait for perf: %w", err)
	}
	line, err := r.ack.ReadString('\n')
	if err != nil {
		return r.exited(fmt.Errorf("no acknowledgement of %s: %w", c, err))
	}
	// perf sends "ack\n" with its C string's terminating NUL.
	if got := strings.Trim(line, "\x00\n"); got != "ack" {
		return fmt.Errorf("perf answered %q to %s", got, c)
	}
	return nil
}

// exited names perf's exit and what it printed, when it has exited.
func (r *Recorder) exited(err error) error {
	select {
	case <-r.done:
	case <-time.After(time.Second):
		return err
	}
	return fmt.Errorf("%w (perf %v: %s)", err, r.err, said(r.stderr.Bytes(), r.err))
}

// Stop disables the events, so that nothing after Stop is counted, then
// ends perf and waits for it to write its file.
func (r *Recorder) Stop() error {
	select {
	case <-r.done:
		msg := fmt.Sprintf("perf record ended early: %v", r.err)
		if out := said(r.stderr.Bytes(), nil); out != "<nil>" {
			msg += ": " + out
		}
		return errors.New(msg)
	default:
	}
	if err := r.command("disable"); err != nil {
		return fmt.Errorf("stop perf record: %w", err)
	}
	// The control pipe stays open until perf has exited: perf 6.1 fails
	// ("Thread and evlist pollfd index mismatch") when it hangs up first.
	if err := r.cmd.Process.Signal(syscall.SIGINT); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("stop perf record: %w", err)
	}
	select {
	case <-r.done:
	case <-time.After(ackTimeout):
		r.cmd.Process.Kill()
		<-r.done
		return fmt.Errorf("perf record did not finish within %v of SIGINT", ackTimeout)
	}
	// perf exits with SIGINT's status when interrupted; only a file counts.
	if st, err := os.Stat(r.data); err != nil || st.Size() == 0 {
		return fmt.Errorf("perf record wrote nothing (%v: %s)", r.err, said(r.stderr.Bytes(), r.err))
	}
	return nil
}

// Profile converts the recording with `perf script` and Parse. It sets
// opt's Executable, the first process's, and RunTimeAddresses, from perf's
// version.
func (r *Recorder) Profile(opt Options) (*pprof.Profile, error) {
	opt.Executable, opt.RunTimeAddresses = r.exe, r.raw
	args := append([]string{"script", "-i", r.data}, ScriptArgs...)
	cmd := exec.Command(r.cmd.Path, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("perf script: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start perf script: %w", err)
	}
	p, perr := Parse(out, opt)
	if perr != nil {
		// Let perf finish writing into the void rather than block.
		cmd.Process.Kill()
	}
	werr := cmd.Wait()
	switch {
	case perr != nil:
		return nil, perr
	case werr != nil:
		return nil, fmt.Errorf("perf script: %v: %s (perf record said: %s)", werr, said(stderr.Bytes(), werr), said(r.stderr.Bytes(), r.err))
	}
	p.Comments = append(p.Comments, "perf "+strings.Join(r.args, " "))
	return p, nil
}

// Keep moves the recording, perf.data, to path, so that it outlives Close
// (perf report -i path reads it). Call it after Stop; the file then belongs
// to the caller.
func (r *Recorder) Keep(path string) error {
	if err := os.Rename(r.data, path); err == nil {
		return nil
	}
	// Another file system: copy it.
	in, err := os.Open(r.data)
	if err != nil {
		return fmt.Errorf("keep perf.data: %w", err)
	}
	defer in.Close()
	out, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("keep perf.data: %w", err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("keep perf.data as %s: %w", path, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("keep perf.data as %s: %w", path, err)
	}
	return nil
}

// Close ends perf if it still runs and removes the recording.
func (r *Recorder) Close() error {
	if r.cmd != nil && r.cmd.Process != nil {
		select {
		case <-r.done:
		default:
			r.cmd.Process.Kill()
			<-r.done
		}
	}
	for _, f := range []*os.File{r.ctl, r.ackF} {
		if f != nil {
			f.Close()
		}
	}
	return os.RemoveAll(r.dir)
}
