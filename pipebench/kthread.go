package pipebench

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/pipebench/pipebench/internal/osthread"
)

// KernelThread is implemented by a backend (a Mechanism or a Loop) whose
// kernel runs a thread of its own in the reading process: io_uring's
// SQPOLL thread (iou-sqp-PID), which takes the submission queue's entries
// without a system call. It is
// a thread of the process (Linux 5.12 and later: before, it was a kernel
// thread outside it), so the process's getrusage and CPU clock include its
// time; the harness meters it over the window as well, and the cost table
// shows it as its own row, out of the rest, so that CPU per event stays
// honest and the rest stays the Go runtime's.
//
// KernelThread returns the thread's id and the name of its row, or 0 when
// the backend runs none. The harness asks once, after Arm.
type KernelThread interface {
	KernelThread() (tid int, name string)
}

// ThreadUsage is one kernel thread's usage over the window: it runs only
// in the kernel, so all its CPU time is system time, read from its CPU
// clock; its context switches from /proc.
type ThreadUsage struct {
	Name string `json:"name"`
	TID  int    `json:"tid"`
	Usage
}

// kernelMeter meters a backend's kernel thread over the window.
type kernelMeter struct {
	name  string
	tid   int
	start Usage
}

// startKernelThread starts metering the backend's kernel thread, if it has
// one; nil otherwise, or when it cannot be read (a failure of the run).
func (r *run) startKernelThread() *kernelMeter {
	k, ok := r.bes[0].(KernelThread) // the first reader's: a run meters one
	if !ok {
		return nil
	}
	tid, name := k.KernelThread()
	if tid == 0 {
		return nil
	}
	u, err := threadUsage(tid)
	if err != nil {
		r.fail(fmt.Errorf("meter %s: %w", name, err))
		return nil
	}
	return &kernelMeter{name: name, tid: tid, start: u}
}

// stop returns the thread's usage since start.
func (m *kernelMeter) stop() (*ThreadUsage, error) {
	if m == nil {
		return nil, nil
	}
	u, err := threadUsage(m.tid)
	if err != nil {
		return nil, fmt.Errorf("meter %s: %w", m.name, err)
	}
	return &ThreadUsage{Name: m.name, TID: m.tid, Usage: u.Sub(m.start)}, nil
}

// threadUsage reads thread tid of this process: its CPU clock, and its
// context switches from /proc/self/task/TID/status, its migrations and
// run-queue wait from sched and schedstat beside it.
func threadUsage(tid int) (Usage, error) {
	cpu := cpuClock(threadCPUClock(tid), -1)
	if cpu < 0 {
		return Usage{}, fmt.Errorf("thread %d: no CPU clock", tid)
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/status", tid))
	if err != nil {
		return Usage{}, err
	}
	u := Usage{System: time.Duration(cpu)}
	u.Voluntary = statusField(b, "\nvoluntary_ctxt_switches:")
	u.Involuntary = statusField(b, "\nnonvoluntary_ctxt_switches:")
	sc := osthread.ReadSched(fmt.Sprintf("/proc/self/task/%d", tid))
	u.Migrations, u.RunDelay, u.NoSched = sc.Migrations, sc.RunDelay, !sc.OK
	return u, nil
}

// statusField is the number after key ("\nname:") in a /proc status file,
// or 0 when it is missing.
func statusField(b []byte, key string) int64 {
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return 0
	}
	v := b[i+len(key):]
	if j := bytes.IndexByte(v, '\n'); j >= 0 {
		v = v[:j]
	}
	n, _ := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
	return n
}
