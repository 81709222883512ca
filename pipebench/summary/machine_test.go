package summary_test

import (
	"math"
	"testing"
	"time"

	"github.com/pipebench/pipebench/experiment/fixture"
	"github.com/pipebench/pipebench/internal/osthread"
	"github.com/pipebench/pipebench/pipebench/summary"
)

// TestMachine: the idle share is over the CPUs the run may use only, idle
// and iowait over all their time, steal included; the machine's CPU per
// event is every CPU's busy time, those the run may not use included;
// neither is given where /proc/stat was not read.
func TestMachine(t *testing.T) {
	ms := time.Millisecond
	res := fixture.Result() // 420000 events
	res.Machine = osthread.MachineCPU{CPUs: []int{0, 1},
		Total: osthread.CPUTime{CPU: -1, User: 900 * ms, System: 600 * ms, IRQ: 100 * ms, Idle: 1200 * ms, IOWait: 100 * ms, Steal: 100 * ms},
		PerCPU: []osthread.CPUTime{
			{CPU: 0, User: 300 * ms, System: 100 * ms, Idle: 600 * ms},
			{CPU: 1, User: 100 * ms, System: 400 * ms, IRQ: 100 * ms, Idle: 200 * ms, IOWait: 100 * ms, Steal: 100 * ms},
			{CPU: 2, User: 500 * ms, System: 100 * ms, Idle: 400 * ms}, // not the run's
		}}
	s := summary.Summarize(res, 1)
	// CPUs 0 and 1: 600+200+100 ms idle or iowait of 2000 ms.
	if s.IdleShare == nil || math.Abs(*s.IdleShare-0.45) > 1e-12 {
		t.Errorf("idle share %v, want 0.45", s.IdleShare)
	}
	// Every CPU busy 1600 ms over 420000 events.
	if want := 1.6e9 / 420000; s.MachineCPUPerEvent == nil || math.Abs(*s.MachineCPUPerEvent-want) > 1e-9 {
		t.Errorf("machine cpu/evt %v, want %v ns", s.MachineCPUPerEvent, want)
	}
	res.Machine = osthread.MachineCPU{CPUs: []int{0, 1}, Missing: "no /proc/stat"}
	if s := summary.Summarize(res, 1); s.IdleShare != nil || s.MachineCPUPerEvent != nil {
		t.Errorf("figures without /proc/stat: idle %v, machine cpu/evt %v", s.IdleShare, s.MachineCPUPerEvent)
	}
}
