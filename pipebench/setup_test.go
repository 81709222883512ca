package pipebench_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/pipebench/pipebench/pipebench"
)

// TestSetupCarriesTheConfig: a run's Setup holds the configuration it ran
// with, the caller's as given except what the run decided or filled in
// (the writer auto chose, one reader and one writer, the default timeouts):
// the caller's Observers are no part of it.
func TestSetupCarriesTheConfig(t *testing.T) {
	cfg := baseConfig()
	cfg.Churn, cfg.Delay, cfg.Warmup = 2, time.Microsecond, 1
	var seen pipebench.Setup
	obs := pipebench.Observers{Labels: map[string]string{"k": "v"}, OnSetup: func(s pipebench.Setup) { seen = s }, OnInterval: func(pipebench.Interval) {}}
	res, err := pipebench.Run(cfg, obs)
	if err != nil {
		t.Fatal(err)
	}
	want := cfg
	want.Writer, want.Readers, want.Writers = pipebench.WriterThread, 1, 1
	want.WaitTimeout, want.StallAfter = 100*time.Millisecond, 2*time.Second
	if !reflect.DeepEqual(res.Setup.Config, want) {
		t.Errorf("setup's config %+v, want %+v", res.Setup.Config, want)
	}
	if !reflect.DeepEqual(seen.Config, want) {
		t.Errorf("OnSetup was handed %+v, want %+v", seen.Config, want)
	}
}
