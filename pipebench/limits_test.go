package pipebench_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/pipebench/pipebench/pipebench"
)

func TestPlanFDs(t *testing.T) {
	epollLike := &pipebench.Factory{Name: "epoll", FDs: 1}
	cases := []struct {
		name       string
		writer     pipebench.WriterMode
		pipes      int
		bypass     bool
		wantWriter pipebench.WriterMode
		wantReason string // substring; "" means none
		wantErr    string // substring; "" means fits
	}{
		{"auto picks thread when it fits", pipebench.WriterAuto, 9000, false, pipebench.WriterThread, "", ""},
		{"auto picks process past the limit", pipebench.WriterAuto, 10000, false, pipebench.WriterProcess, "thread mode needs 20008 descriptors, limit 20000", ""},
		{"self fits at 9997", pipebench.WriterSelf, 9997, false, pipebench.WriterSelf, "", ""},
		{"self refused at 9998", pipebench.WriterSelf, 9998, false, pipebench.WriterSelf, "", "use Pipes 9997 or less"},
		{"thread refused names process", pipebench.WriterThread, 10000, false, pipebench.WriterThread, "", "Writer process"},
		{"process fits 19000", pipebench.WriterProcess, 19000, false, pipebench.WriterProcess, "", ""},
		{"process refused past limit", pipebench.WriterProcess, 19900, false, pipebench.WriterProcess, "", "use Pipes 19742 or less"},
		{"bypass auto is self", pipebench.WriterAuto, 9000, true, pipebench.WriterSelf, "", ""},
		{"bypass auto picks process past the limit", pipebench.WriterAuto, 10000, true, pipebench.WriterProcess, "self mode needs 20005 descriptors, limit 20000", ""},
		{"bypass self refused names process", pipebench.WriterSelf, 9998, true, pipebench.WriterSelf, "", "use Pipes 9997 or less, or Writer process"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := &pipebench.Config{Workload: pipebench.Workload{Pipes: c.pipes, InFlight: 1}, Readiness: pipebench.Readiness{Backend: epollLike}, Threads: pipebench.Threads{Writer: c.writer}}
			if c.bypass {
				cfg.Backend = &pipebench.Bypass
			}
			// 5 descriptors open: stdio and the Go runtime's epoll and eventfd.
			p, err := pipebench.PlanFDs(cfg, 5, 20000)
			if c.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
			} else {
				var le *pipebench.LimitError
				if !errors.As(err, &le) || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("got %v, want a limit error with %q", err, c.wantErr)
				}
				return
			}
			if p.Writer != c.wantWriter {
				t.Errorf("writer %s, want %s", p.Writer, c.wantWriter)
			}
			if (c.wantReason == "") != (p.Reason == "") || !strings.Contains(p.Reason, c.wantReason) {
				t.Errorf("reason %q, want %q", p.Reason, c.wantReason)
			}
			if p.ReaderFDs > 20000 || p.WriterFDs > 20000 {
				t.Errorf("plan exceeds the limit: %+v", p)
			}
		})
	}
}
