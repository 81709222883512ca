package osthread

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// Usage is CPU time and context switches from getrusage, for a thread or a
// process, over the measured window, and what the scheduler shows of it in
// /proc.
type Usage struct {
	User   time.Duration `json:"user_ns"`
	System time.Duration `json:"system_ns"`
	// Voluntary context switches (the thread slept, e.g. in a wait call) and
	// involuntary ones (it was preempted). Each voluntary switch ends in
	// one wake-up: the kernel counts wake-ups themselves (nr_wakeups) only
	// with schedstats on (CONFIG_SCHEDSTATS, kernel.sched_schedstats).
	Voluntary   int64 `json:"voluntary_ctxsw"`
	Involuntary int64 `json:"involuntary_ctxsw"`
	// Migrations are the times the scheduler moved the thread to another
	// CPU (se.nr_migrations in /proc/PID/task/TID/sched), and RunDelay the
	// time it spent runnable but waiting for a CPU (the second field of
	// /proc/PID/task/TID/schedstat); for a process, the sums over the
	// threads alive at each end. NoSched says they were not read: the
	// kernel shows neither (built without CONFIG_SCHED_DEBUG or
	// CONFIG_SCHED_INFO), or no descriptor was free to open the files (a
	// run at its exact descriptor budget).
	Migrations int64         `json:"migrations"`
	RunDelay   time.Duration `json:"run_delay_ns"`
	NoSched    bool          `json:"sched_unknown,omitempty"`
}

// GetUsage is getrusage(2) for who: unix.RUSAGE_THREAD (the calling
// thread; lock the goroutine to it first) or unix.RUSAGE_SELF.
func GetUsage(who int) (Usage, error) {
	var ru unix.Rusage
	if err := unix.Getrusage(who, &ru); err != nil {
		return Usage{}, fmt.Errorf("getrusage: %w", err)
	}
	u := Usage{
		User:        time.Duration(ru.Utime.Nano()),
		System:      time.Duration(ru.Stime.Nano()),
		Voluntary:   ru.Nvcsw,
		Involuntary: ru.Nivcsw,
	}
	var s Sched
	if who == unix.RUSAGE_THREAD {
		s = ReadSched("/proc/thread-self")
	} else {
		tasks, _ := filepath.Glob("/proc/self/task/*")
		s.OK = len(tasks) > 0
		for _, t := range tasks {
			ts := ReadSched(t)
			s.Migrations, s.RunDelay, s.OK = s.Migrations+ts.Migrations, s.RunDelay+ts.RunDelay, s.OK && ts.OK
		}
	}
	u.Migrations, u.RunDelay, u.NoSched = s.Migrations, s.RunDelay, !s.OK
	return u, nil
}

// Sched is what the scheduler shows of a thread in /proc (see Usage).
type Sched struct {
	Migrations int64
	RunDelay   time.Duration
	OK         bool // both were read
}

// ReadSched reads the sched and schedstat files of the thread whose /proc
// directory is dir (/proc/thread-self, /proc/self/task/TID).
func ReadSched(dir string) Sched {
	var buf [8192]byte
	b, err := readOnce(dir+"/sched", buf[:])
	if err != nil {
		return Sched{}
	}
	mig, ok := schedField(b, "se.nr_migrations")
	st, err := readOnce(dir+"/schedstat", buf[:])
	f := bytes.Fields(st)
	if err != nil || len(f) < 2 {
		return Sched{}
	}
	delay, err := strconv.ParseInt(string(f[1]), 10, 64)
	return Sched{Migrations: mig, RunDelay: time.Duration(delay), OK: ok && err == nil}
}

// readOnce reads a small /proc file in one read(2) into buf: the kernel
// fills a seq_file's first read up to the buffer's size, and one read
// rather than os.ReadFile's read to EOF keeps the system calls around the
// window few (cmd/pipebench's strace test counts them).
func readOnce(path string, buf []byte) ([]byte, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	defer unix.Close(fd)
	n, err := unix.Read(fd, buf)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return buf[:n], nil
}

// schedField is the number after "key  :" in a /proc sched file.
func schedField(b []byte, key string) (int64, bool) {
	for line := range bytes.Lines(b) {
		k, v, found := bytes.Cut(line, []byte(":"))
		if found && string(bytes.TrimSpace(k)) == key {
			n, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// Sub returns u - v.
func (u Usage) Sub(v Usage) Usage {
	return Usage{u.User - v.User, u.System - v.System, u.Voluntary - v.Voluntary, u.Involuntary - v.Involuntary,
		u.Migrations - v.Migrations, u.RunDelay - v.RunDelay, u.NoSched || v.NoSched}
}

// Add returns u + v.
func (u Usage) Add(v Usage) Usage {
	return Usage{u.User + v.User, u.System + v.System, u.Voluntary + v.Voluntary, u.Involuntary + v.Involuntary,
		u.Migrations + v.Migrations, u.RunDelay + v.RunDelay, u.NoSched || v.NoSched}
}

// CPU is user plus system time.
func (u Usage) CPU() time.Duration { return u.User + u.System }

// Meter measures one thread's or process's usage from StartUsage to Stop.
type Meter struct {
	who   int
	start Usage
	err   error
}

// StartUsage starts measuring who (see GetUsage).
func StartUsage(who int) Meter {
	u, err := GetUsage(who)
	return Meter{who: who, start: u, err: err}
}

// Stop returns the usage since StartUsage.
func (m Meter) Stop() (Usage, error) {
	if m.err != nil {
		return Usage{}, m.err
	}
	u, err := GetUsage(m.who)
	if err != nil {
		return Usage{}, err
	}
	return u.Sub(m.start), nil
}
