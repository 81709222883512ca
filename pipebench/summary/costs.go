package summary

import (
	"fmt"

	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/stats"
)

// Cost is one thread's or process's CPU and scheduler cost.
type Cost struct {
	Who string `json:"who"`
	// CPUPerEvent is user and system time together. The split is left out
	// (nil) for the rest of a process: the kernel apportions each thread's
	// and each process's CPU time between user and system separately, so
	// the process's split less its threads' is not a split of what the
	// other threads used (it can even be negative); the total is exact.
	CPUPerEvent    float64  `json:"cpu_ns_per_event"`
	UserPerEvent   *float64 `json:"user_ns_per_event,omitempty"`
	SystemPerEvent *float64 `json:"system_ns_per_event,omitempty"`
	// Voluntary context switches (the thread slept) and involuntary ones
	// (it was preempted), per second of the window and per event.
	VoluntaryPerSec     float64 `json:"voluntary_ctxsw_per_sec"`
	InvoluntaryPerSec   float64 `json:"involuntary_ctxsw_per_sec"`
	VoluntaryPerEvent   float64 `json:"voluntary_ctxsw_per_event"`
	InvoluntaryPerEvent float64 `json:"involuntary_ctxsw_per_event"`
	// Migrations to another CPU and the time spent runnable waiting for a
	// CPU, per event; nil where the kernel does not show them (Usage).
	MigrationsPerEvent *float64 `json:"migrations_per_event,omitempty"`
	RunDelayPerEvent   *float64 `json:"run_delay_ns_per_event,omitempty"`
}

// costs are the cost rows of res: the reader thread, the writer thread
// (thread and process mode), the rest of the reading process and the
// process, then the writer process's rest and the writer process (process
// mode). With several readers or writers, each reader thread and each
// writer thread has a row of its own ("reader 1 thread"), in place of the
// one row of its role; every row is per event of the whole run.
func costs(res *pipebench.Result) []Cost {
	events := res.Totals.Events
	secs := res.Elapsed.Seconds()
	one := func(who string, u pipebench.Usage) Cost {
		user, sys := stats.PerEvent(uint64(u.User), events), stats.PerEvent(uint64(u.System), events)
		var mig, delay *float64
		if !u.NoSched {
			m, d := stats.PerEvent(uint64(max(u.Migrations, 0)), events), stats.PerEvent(uint64(max(u.RunDelay, 0)), events)
			mig, delay = &m, &d
		}
		return Cost{
			Who:                 who,
			CPUPerEvent:         stats.PerEvent(uint64(max(u.CPU(), 0)), events),
			UserPerEvent:        &user,
			SystemPerEvent:      &sys,
			VoluntaryPerSec:     stats.Rate(uint64(u.Voluntary), secs),
			InvoluntaryPerSec:   stats.Rate(uint64(u.Involuntary), secs),
			VoluntaryPerEvent:   stats.PerEvent(uint64(u.Voluntary), events),
			InvoluntaryPerEvent: stats.PerEvent(uint64(u.Involuntary), events),
			MigrationsPerEvent:  mig,
			RunDelayPerEvent:    delay,
		}
	}
	// A writer that died before reporting left no figures: show none
	// rather than zeros.
	writer := !res.Tokens.SentUnknown
	mode := res.Setup.Writer
	var c []Cost
	if len(res.Readers) > 0 {
		for k, r := range res.Readers {
			c = append(c, one(fmt.Sprintf("reader %d thread", k), r.Usage))
		}
		for w, wr := range res.Writers {
			c = append(c, one(fmt.Sprintf("writer %d thread", w), wr.Usage))
		}
	} else {
		c = append(c, one("reader thread", res.ReaderThread))
		if writer && (mode == pipebench.WriterThread || mode == pipebench.WriterProcess) {
			c = append(c, one("writer thread", res.WriterThread))
		}
	}
	if k := res.KernelThread; k != nil {
		c = append(c, one(k.Name, k.Usage))
	}
	restOf := func(who string, u pipebench.Usage) Cost {
		r := one(who, u)
		r.UserPerEvent, r.SystemPerEvent = nil, nil
		return r
	}
	rest, writerRest := rests(res)
	c = append(c, restOf(restName(res.Setup), rest), one("process", res.Process))
	if writer && mode == pipebench.WriterProcess {
		c = append(c, restOf("writer rest", writerRest), one("writer process", res.WriterProcess))
	}
	return c
}

// rests are what the threads of each process other than its reader and
// writer (and the backend's kernel thread) used: the Go runtime (sysmon,
// the garbage collector), the reporter, the signal handler. The second is
// the writer process's.
func rests(res *pipebench.Result) (rest, writerRest pipebench.Usage) {
	rest = res.Process.Sub(res.ReaderThread)
	if res.Setup.Writer == pipebench.WriterThread {
		rest = rest.Sub(res.WriterThread)
	}
	if k := res.KernelThread; k != nil {
		rest = rest.Sub(k.Usage)
	}
	return rest, res.WriterProcess.Sub(res.WriterThread)
}

// restName names the row of a process's other threads. When the reads
// were made on goroutines (gonet) the reading is done there, on the Go
// runtime's threads: by design, not overhead.
func restName(s pipebench.Setup) string {
	if s.ReadsOnGoroutines {
		return "goroutines"
	}
	return "rest"
}
