package summary_test

import (
	"reflect"
	"testing"

	"github.com/pipebench/pipebench/experiment/fixture"
	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/pipebench/summary"
)

// TestSummaryReadsDataNotBackend: the summary depends on what the run did
// (Setup's NoReadinessCalls, ReadsOnGoroutines, CtlInRing, IOInRing and the
// counts), never on which backend did it: another factory (another name,
// other features, a Loop's opener) changes nothing, and each fact changes
// what it governs whatever the backend.
func TestSummaryReadsDataNotBackend(t *testing.T) {
	facts := []func(*pipebench.Setup){
		func(*pipebench.Setup) {},
		func(s *pipebench.Setup) { s.NoReadinessCalls = true },
		func(s *pipebench.Setup) { s.ReadsOnGoroutines = true },
		func(s *pipebench.Setup) { s.CtlInRing = true },
		func(s *pipebench.Setup) { s.IOInRing, s.CtlInRing = true, true },
	}
	for i, set := range facts {
		var base summary.Summary
		backends := []*pipebench.Factory{
			{Name: "epoll", Features: pipebench.Nests | pipebench.Shares},
			&pipebench.Bypass,
			{Name: "gonet", Features: pipebench.Goroutines, FDsPerPipe: 1},
			{Name: "uring-rw", Features: pipebench.RingQueued, FDs: 1},
			{Name: "no such backend"},
		}
		for k, be := range backends {
			res := fixture.Result()
			set(&res.Setup)
			if res.Setup.NoReadinessCalls {
				res.Totals.Calls, res.Totals.EmptyCalls = 0, 0
			}
			res.Setup.Backend = be
			s := summary.Summarize(res, 1)
			if k == 0 {
				base = s
				continue
			}
			if !reflect.DeepEqual(s, base) {
				t.Errorf("facts %d: the summary of a run of %s differs from the same run of epoll:\n%+v\n%+v", i, be.Name, s, base)
			}
		}
	}
	res := fixture.Result()
	res.Setup.Backend = &pipebench.Bypass
	if s := summary.Summarize(res, 1); !s.Applies {
		t.Error("samples per call left out for a run that made readiness calls, because of its backend's name")
	}
	res.Setup.NoReadinessCalls = true
	if s := summary.Summarize(res, 1); s.Applies {
		t.Error("samples per call applies to a run that made no readiness call")
	}
}
