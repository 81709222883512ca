package summary

import (
	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/stats"
)

// machine is the machine's side of a run's cost, from /proc/stat over its
// window (Result.Machine), or nil and nil where that was not read:
//
//   - idle, the share of the time of the CPUs the run may use
//     (Machine.CPUs) that they spent idle: idle and iowait over all their
//     time (busy, idle, iowait and steal), what is left for other work
//     at the rate the run offers (Config.Rate) or takes;
//   - perEvent, the busy time of every CPU, every program's and the
//     kernel's interrupts included, in nanoseconds per event.
//
// /proc/stat counts in ticks of 10 ms: a window of a second or more gives
// the share to about a hundredth of a CPU.
func machine(res *pipebench.Result) (idle, perEvent *float64) {
	m := &res.Machine
	if m.Missing != "" || len(m.PerCPU) == 0 {
		return nil, nil
	}
	a := m.Allowed()
	if all := a.Busy() + a.Idle + a.IOWait + a.Steal; all > 0 {
		x := float64(a.Idle+a.IOWait) / float64(all)
		idle = &x
	}
	if res.Totals.Events > 0 {
		x := stats.PerEvent(uint64(max(m.Total.Busy(), 0)), res.Totals.Events)
		perEvent = &x
	}
	return idle, perEvent
}
