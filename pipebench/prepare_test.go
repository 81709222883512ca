package pipebench_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/poll"
)

// TestPrepareChecksOnce: Prepare applies every rule of a run once, the
// backend's own Check among them, and its Prepared runs as often as asked,
// on fresh pipes each time, without checking again.
func TestPrepareChecksOnce(t *testing.T) {
	checks := 0
	f := poll.Factory
	f.Check = func(*pipebench.Config, pipebench.Names) error { checks++; return nil }
	cfg := baseConfig()
	cfg.Backend = &f
	p, err := pipebench.Prepare(cfg, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if checks != 1 {
		t.Fatalf("Prepare called the backend's Check %d times, want once", checks)
	}
	for range 2 {
		res, err := p.Run(pipebench.Observers{})
		if err != nil {
			t.Fatal(err)
		}
		checkAccounting(t, res)
	}
	if checks != 1 {
		t.Errorf("the backend's Check ran %d times for one Prepare and two runs, want once", checks)
	}
	if got := p.Config(); got.Pipes != cfg.Pipes || got.Writer != pipebench.WriterAuto || got.WaitTimeout != 0 {
		t.Errorf("Config() = %+v, want the configuration as given", got)
	}
}

// TestErrorsWrittenByNames: a rule's error is written once by the
// caller's Names, the Config's own fields when there are none, and keeps
// the fields it names, each once, in order; a LimitError keeps its
// figures too.
func TestErrorsWrittenByNames(t *testing.T) {
	flags := func(field, value string) string {
		flag := map[string]string{"InFlight": "-l", "Writer": "-writer"}[field]
		if value == "" {
			return flag
		}
		return flag + " " + value
	}
	refuse := func(n pipebench.Names) *pipebench.ConfigError {
		return n.Errorf("%s with %s: use %s self, or %s %d", pipebench.Set("InFlight", 0), pipebench.Set("Writer", "thread"),
			pipebench.Field("Writer"), pipebench.Field("InFlight"), 1)
	}
	for _, c := range []struct {
		names pipebench.Names
		want  string
	}{
		{nil, "InFlight 0 with Writer thread: use Writer self, or InFlight 1"},
		{flags, "-l 0 with -writer thread: use -writer self, or -l 1"},
	} {
		err := refuse(c.names)
		if err.Error() != c.want {
			t.Errorf("written %q, want %q", err, c.want)
		}
		if got := strings.Join(err.Fields, ","); got != "InFlight,Writer" {
			t.Errorf("%q names fields %s, want InFlight,Writer", err, got)
		}
	}
	var le *pipebench.LimitError
	err := error(pipebench.Names(flags).LimitErrorf(20008, 20000, "%s needs %d descriptors", pipebench.Set("Writer", "thread"), 20008))
	if !errors.As(err, &le) || le.Need != 20008 || le.Limit != 20000 || err.Error() != "-writer thread needs 20008 descriptors" || le.Fields[0] != "Writer" {
		t.Errorf("limit error %q: %+v", err, le)
	}
}
