package pipebench

import (
	"time"

	"golang.org/x/sys/unix"
)

// CPUTimes are CPU time (user and system together) used during one interval,
// read from the kernel's CPU-time clocks (clock_gettime): the reader thread,
// the writer thread (thread mode), this whole process, and the writer
// process (process mode). With several readers or writers, Reader and
// Writer add up all of them. What the process used beyond its measured threads
// is the Go runtime's and the reporter's: Rest.
type CPUTimes struct {
	Reader        time.Duration `json:"reader_ns"`
	Writer        time.Duration `json:"writer_thread_ns,omitempty"`
	Process       time.Duration `json:"process_ns"`
	WriterProcess time.Duration `json:"writer_process_ns,omitempty"`
}

// Rest is the process's CPU time beyond its reader and writer threads:
// sysmon, the garbage collector, the reporter, the signal handler.
func (c CPUTimes) Rest() time.Duration { return c.Process - c.Reader - c.Writer }

// Sub returns c - d.
func (c CPUTimes) Sub(d CPUTimes) CPUTimes {
	return CPUTimes{c.Reader - d.Reader, c.Writer - d.Writer, c.Process - d.Process, c.WriterProcess - d.WriterProcess}
}

// cpuClocks are the clock ids the reporter reads at every interval; -1
// where there is no such thread or process. Linux encodes a thread's or a
// process's CPU-time clock in the id (MAKE_THREAD_CPUCLOCK and
// MAKE_PROCESS_CPUCLOCK of the kernel's posix-timers.h, with CPUCLOCK_SCHED:
// the scheduler's exact count). Thread clocks are readable only within
// this process, so the writer process is read as a whole. moreReaders and
// moreWriters are the clocks of the second and later readers and writer
// threads, added to the first's.
type cpuClocks struct {
	reader, writer, process, writerProcess int32
	moreReaders, moreWriters               []int32
}

const (
	cpuclockSched     = 2
	cpuclockPerThread = 4
)

func threadCPUClock(tid int) int32  { return ^int32(tid)<<3 | cpuclockPerThread | cpuclockSched }
func processCPUClock(pid int) int32 { return ^int32(pid)<<3 | cpuclockSched }

// newCPUClocks names the clocks of a run from its setup's thread ids;
// writerThreads says that the writers are threads of this process.
func newCPUClocks(s Setup, writerThreads bool) cpuClocks {
	c := cpuClocks{reader: threadCPUClock(s.ReaderTID), writer: -1, process: unix.CLOCK_PROCESS_CPUTIME_ID, writerProcess: -1}
	if writerThreads {
		c.writer = threadCPUClock(s.WriterTID)
	}
	if s.WriterPID != unix.Getpid() {
		c.writerProcess = processCPUClock(s.WriterPID)
	}
	for _, tid := range s.ReaderTIDs[min(1, len(s.ReaderTIDs)):] {
		c.moreReaders = append(c.moreReaders, threadCPUClock(tid))
	}
	for _, tid := range s.WriterTIDs[min(1, len(s.WriterTIDs)):] {
		c.moreWriters = append(c.moreWriters, threadCPUClock(tid))
	}
	return c
}

// read reads every clock; one that cannot be read (a writer process that
// has just exited) keeps its value in prev, so that the interval shows no
// CPU for it rather than a negative amount.
func (c cpuClocks) read(prev CPUTimes) CPUTimes {
	t := CPUTimes{
		Reader:        cpuClock(c.reader, prev.Reader),
		Writer:        cpuClock(c.writer, prev.Writer),
		Process:       cpuClock(c.process, prev.Process),
		WriterProcess: cpuClock(c.writerProcess, prev.WriterProcess),
	}
	for _, id := range c.moreReaders {
		t.Reader += cpuClock(id, 0)
	}
	for _, id := range c.moreWriters {
		t.Writer += cpuClock(id, 0)
	}
	return t
}

func cpuClock(id int32, prev time.Duration) time.Duration {
	if id == -1 {
		return 0
	}
	var ts unix.Timespec
	if unix.ClockGettime(id, &ts) != nil {
		return prev
	}
	return time.Duration(ts.Nano())
}
