package main

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/pipebench/pipebench/experiment/herd"
	"github.com/pipebench/pipebench/experiment/timeout"
	"github.com/pipebench/pipebench/pipebench"
)

// TestListFlags: every list flag is one type; lists of points to measure
// refuse an item given twice, the -cpu pair may name one CPU for both
// sides, as -cpu 0 does.
func TestListFlags(t *testing.T) {
	var cpus []int
	if err := cpuList(&cpus).Set("0,0"); err != nil || !slices.Equal(cpus, []int{0, 0}) {
		t.Errorf("-cpu 0,0: %v %v, want [0 0]", cpus, err)
	}
	var spread bool
	cpu := cpuFlag{cpuList(&cpus), &spread}
	if err := cpu.Set("spread"); err != nil || !spread || cpus != nil || cpu.String() != "spread" {
		t.Errorf("-cpu spread: spread %v, list %v, %v", spread, cpus, err)
	}
	if err := cpu.Set("1,0,1,0"); err != nil || spread || !slices.Equal(cpus, []int{1, 0, 1, 0}) {
		t.Errorf("-cpu 1,0,1,0: spread %v, list %v, %v", spread, cpus, err)
	}
	var ds []time.Duration
	durations := listFlag[time.Duration]{v: &ds, parse: timeoutItem}
	if err := durations.Set("50us, 1ms"); err != nil || !slices.Equal(ds, []time.Duration{50 * time.Microsecond, time.Millisecond}) {
		t.Errorf("-timeouts 50us,1ms: %v %v", ds, err)
	}
	var ms []timeout.Mechanism
	mechanisms := listFlag[timeout.Mechanism]{v: &ms, parse: timeout.ParseMechanism}
	for _, c := range []struct {
		name string
		set  func() error
		want string
	}{
		{"-timeouts 1ms,1ms", func() error { return durations.Set("1ms,1ms") }, "1ms is listed twice"},
		{"-mechanisms ppoll,ppoll", func() error { return mechanisms.Set("ppoll,ppoll") }, "ppoll is listed twice"},
		{"-timeouts 1ms,", func() error { return durations.Set("1ms,") }, "empty item: want a comma-separated list with no empty item"},
		{"-cpu 0,spread", func() error { return cpuList(&cpus).Set("0,spread") }, "want CPU numbers such as 0 or 0,1, or spread"},
	} {
		if err := c.set(); err == nil || err.Error() != c.want {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestFlagNames: the command's one map from Config field to flag names
// fields of the Configs the command fills, and each flag it names is one
// that every subcommand whose Config has the field registers, so that a
// field renamed in the library cannot leave an error naming it.
func TestFlagNames(t *testing.T) {
	configs := []struct {
		name   string
		config any
		sub    string // the subcommand whose flags they are, "" for a run
	}{
		{"run", pipebench.Config{}, ""},
		{"herd", herd.Config{}, "herd"},
		{"timeout", timeout.Config{}, "timeout"},
	}
	known := map[string]bool{}
	for _, c := range configs {
		t.Run(c.name, func(t *testing.T) {
			fields := reflect.TypeOf(c.config)
			args := []string{"-h"}
			if c.sub != "" {
				args = []string{c.sub, "-h"}
			}
			_, help, _ := invoke(t, args...)
			for field, flag := range fieldFlags {
				if _, ok := fields.FieldByName(field); !ok {
					continue
				}
				known[field] = true
				if !regexp.MustCompile(`(?m)^  ` + flag + `\b`).MatchString(help) {
					t.Errorf("%s of %v: the command has no flag %s", field, fields, flag)
				}
			}
		})
	}
	for field := range fieldFlags {
		if !known[field] {
			t.Errorf("%s is a field of no Config the command fills", field)
		}
	}
	set, field := pipebench.Set, pipebench.Field
	churn := func(n pipebench.Names) error {
		return n.Errorf("%s: want 0 to %s (%d)", set("Churn", 11), field("Pipes"), 10)
	}
	if got, want := fmt.Sprintf("sweep: %v", churn(flagNames(false))), "sweep: -churn 11: want 0 to -n (10)"; got != want {
		t.Errorf("written %q, want %q", got, want)
	}
	if got, want := churn(nil).Error(), "Churn 11: want 0 to Pipes (10)"; got != want {
		t.Errorf("the library's own message %q, want %q", got, want)
	}
	for _, c := range []struct {
		f    bool
		want string
	}{{true, "-f with -writer thread"}, {false, "-b bypass with -writer thread"}} {
		err := flagNames(c.f).Errorf("%s with %s", set("Backend", pipebench.Bypass.Name), set("Writer", "thread"))
		if got := err.Error(); got != c.want {
			t.Errorf("-f given %v: written %q, want %q", c.f, got, c.want)
		}
	}
}
