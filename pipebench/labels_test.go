package pipebench_test

import (
	"bytes"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/pipebench/pipebench/pipebench"
)

// TestLabels profiles runs' measured windows and finds the reader's and the
// writer's CPU samples under their labels.
func TestLabels(t *testing.T) {
	cases := []struct {
		writer pipebench.WriterMode
		roles  []string
	}{
		{pipebench.WriterThread, []string{pipebench.RoleReader, pipebench.RoleWriter}},
		{pipebench.WriterSelf, []string{pipebench.RoleSelf}},
	}
	for _, c := range cases {
		t.Run(c.writer.String(), func(t *testing.T) {
			cfg := baseConfig()
			cfg.Writer, cfg.Duration = c.writer, 600*time.Millisecond
			var obs pipebench.Observers
			obs.Labels = map[string]string{"backend": "poll", "pipes": "50"}
			var buf bytes.Buffer
			var startErr error
			obs.OnSetup = func(pipebench.Setup) { startErr = pprof.StartCPUProfile(&buf) }
			obs.OnDone = pprof.StopCPUProfile
			res, err := pipebench.Run(cfg, obs)
			if startErr != nil {
				t.Fatal(startErr)
			}
			if err != nil {
				t.Fatal(err)
			}
			checkAccounting(t, res)
			p, err := profile.Parse(&buf)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]int{}
			for _, s := range p.Sample {
				role := s.Label["role"]
				if len(role) == 0 {
					continue
				}
				seen[role[0]]++
				if !s.HasLabel("backend", "poll") || !s.HasLabel("pipes", "50") || !s.HasLabel("writer", c.writer.String()) {
					t.Errorf("sample of %s labelled %v: want backend poll, pipes 50, writer %s", role[0], s.Label, c.writer)
				}
			}
			for _, r := range c.roles {
				if seen[r] == 0 {
					t.Errorf("no CPU sample labelled role=%s (labelled: %v)", r, seen)
				}
			}
			if len(seen) != len(c.roles) {
				t.Errorf("roles %v, want only %v", seen, c.roles)
			}
		})
	}
}
