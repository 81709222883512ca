package pipebench_test

import (
	"testing"

	"github.com/pipebench/pipebench/pipebench"
)

func TestRunLatency(t *testing.T) {
	cases := []struct {
		name     string
		writer   pipebench.WriterMode
		inFlight int
		bypass   bool
	}{
		{"self", pipebench.WriterSelf, 4, false},
		{"thread", pipebench.WriterThread, 4, false},
		{"process", pipebench.WriterProcess, 4, false},
		{"unbounded", pipebench.WriterThread, 0, false},
		{"bypass", pipebench.WriterSelf, 2, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := baseConfig()
			cfg.Writer, cfg.InFlight, cfg.Latency = c.writer, c.inFlight, true
			if c.bypass {
				cfg.Backend = &pipebench.Bypass
			}
			res, err := pipebench.Run(cfg, pipebench.Observers{})
			if err != nil {
				t.Fatal(err)
			}
			checkAccounting(t, res)
			if got := res.Latency.Count(); got != res.Tokens.Received {
				t.Errorf("%d latencies recorded for %d tokens received", got, res.Tokens.Received)
			}
			if res.Latency.Quantile(0.5) <= 0 || res.Latency.Max() > uint64(cfg.Duration)*10 {
				t.Errorf("implausible latencies: p50 %v ns, max %v ns", res.Latency.Quantile(0.5), res.Latency.Max())
			}
			if c.inFlight > 0 && res.Tokens.Drained > uint64(c.inFlight) {
				t.Errorf("drained %d tokens with %d in flight: token size mixed up?", res.Tokens.Drained, c.inFlight)
			}
		})
	}
}
