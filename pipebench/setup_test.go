package pipebench_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/pipebench/pipebench/pipebench"
)

// TestSetupCarriesTheConfig: a run's Setup holds the configuration it ran
// with, the caller's as given except what the run decided or filled in
// (the writer auto chose, one reader and one writer, the default timeouts),
// and none of the caller's hooks.
func TestSetupCarriesTheConfig(t *testing.T) {
	cfg := baseConfig()
	cfg.Churn, cfg.Delay, cfg.Labels = 2, time.Microsecond, []string{"k", "v"}
	var seen pipebench.Setup
	cfg.OnSetup = func(s pipebench.Setup) { seen = s }
	cfg.OnInterval = func(pipebench.Interval) {}
	res, err := pipebench.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := cfg
	want.Writer, want.Readers, want.Writers = pipebench.WriterThread, 1, 1
	want.WaitTimeout, want.StallAfter = 100*time.Millisecond, 2*time.Second
	want.OnSetup, want.OnInterval = nil, nil
	if !reflect.DeepEqual(res.Setup.Config, want) {
		t.Errorf("setup's config %+v, want %+v", res.Setup.Config, want)
	}
	if !reflect.DeepEqual(seen.Config, want) {
		t.Errorf("OnSetup was handed %+v, want %+v", seen.Config, want)
	}
}
