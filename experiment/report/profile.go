package report

import (
	"strconv"

	"github.com/pipebench/pipebench/internal/profile"
	"github.com/pipebench/pipebench/pipebench"
)

// HookProfiler is obs with p's profiles of the measured window of cfg's
// run composed in: the window's opening (OnSetup) begins p's profiles of
// the run's processes, its closing (OnDone) ends them, and a profile that
// cannot start stops the run (Stop). With the Go CPU profile, the run's
// goroutines are labelled with cfg's backend, pipes and tokens in flight.
// obs's own observers still run, OnSetup's before the profiles begin and
// OnDone's after they end; a nil p returns obs as it is. The plain run's
// -cpuprofile and -kprofile, and pipebench seeds' kernel profiles, are
// hooked so.
func HookProfiler(p *profile.Profiler, cfg pipebench.Config, obs pipebench.Observers) pipebench.Observers {
	if p == nil {
		return obs
	}
	if p.GoCPU() {
		obs.Labels = map[string]string{"backend": cfg.Backend.Name, "pipes": strconv.Itoa(cfg.Pipes), "inflight": strconv.Itoa(cfg.InFlight)}
	}
	obs.Stop = p.Stop(obs.Stop)
	onSetup, onDone := obs.OnSetup, obs.OnDone
	obs.OnSetup = func(s pipebench.Setup) {
		if onSetup != nil {
			onSetup(s)
		}
		p.Begin(targets(s))
	}
	obs.OnDone = func() {
		p.End()
		if onDone != nil {
			onDone()
		}
	}
	return obs
}

// targets are the processes of a run to profile, its reader and writer
// threads named by their roles, its processes "main" and "writer".
func targets(s pipebench.Setup) profile.Targets {
	t := profile.Targets{PIDs: []int{s.PID}, Roles: map[int]string{s.ReaderTID: pipebench.RoleReader},
		Processes: map[int]string{s.PID: "main"}}
	if s.WriterTID == s.ReaderTID {
		t.Roles[s.ReaderTID] = pipebench.RoleSelf
	} else if s.WriterTID != 0 {
		t.Roles[s.WriterTID] = pipebench.RoleWriter
	}
	for _, tid := range s.ReaderTIDs { // several readers and writers
		t.Roles[tid] = pipebench.RoleReader
	}
	for _, tid := range s.WriterTIDs {
		t.Roles[tid] = pipebench.RoleWriter
	}
	if s.WriterPID != s.PID {
		t.PIDs = append(t.PIDs, s.WriterPID)
		t.Processes[s.WriterPID] = "writer"
	}
	return t
}
