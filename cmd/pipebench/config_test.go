package main

import (
	"errors"
	"flag"
	"io"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/pipebench/pipebench/experiment/herd"
	"github.com/pipebench/pipebench/experiment/timeout"
	"github.com/pipebench/pipebench/pipebench"
)

// notConfig are the flags that set no field of their subcommand's Config,
// and why: what to do with the results, and settings of the summary, not
// of what is measured.
var notConfig = map[string]map[string]string{
	"": {
		"f":          "-b bypass: sets Backend",
		"format":     "output format",
		"o":          "output file",
		"count":      "repetitions: each runs the same Config on fresh pipes (the record's config block holds count)",
		"cpuprofile": "profile file (report.HookProfiler composes the run's Observers)",
		"kprofile":   "profile file (report.HookProfiler composes the run's Observers)",
		"perfdata":   "perf's own file of -kprofile",
		"v":          "what the text output shows; the record holds every figure",
	},
	"herd": {
		"format": "output format",
		"o":      "output file",
		"warmup": "intervals the summary leaves out; the herd measures them all",
	},
	"timeout": {
		"format": "output format",
		"o":      "output file",
	},
	// sweep's lists (-b, -n, -l, -readers, -writers) set a field of each
	// point's Config, one value a point; the rest are the run's flags.
	"sweep": {
		"format":    "output format",
		"o":         "output file",
		"count":     "rounds: every point once a round",
		"pipes-per": "what -n counts: the points' Pipes are made from it and -readers or -writers",
		"plot":      "output file",
		"ratios":    "columns of the table",
		"ref":       "reference table drawn on the plot",
		"refine":    "points added inside the crossings' brackets, each with a Config as the grid's",
		"unit":      "the table's unit",
	},
}

// TestEveryFlagIsAConfigField: every flag of a run, of sweep, of herd and of
// timeout sets a field of its Config (through fieldFlags, the map the command's
// errors name flags by), or is listed in notConfig with the reason: a flag
// added to the command without a Config field fails here.
func TestEveryFlagIsAConfigField(t *testing.T) {
	for sub, config := range map[string]any{"": pipebench.Config{}, "sweep": pipebench.Config{}, "herd": herd.Config{}, "timeout": timeout.Config{}} {
		fields := reflect.TypeOf(config)
		cmd, args := "pipebench", []string{"-h"}
		if sub != "" {
			cmd, args = "pipebench "+sub, []string{sub, "-h"}
		}
		_, help, _ := invoke(t, args...)
		flags := regexp.MustCompile(`(?m)^  -([a-z0-9-]+)`).FindAllStringSubmatch(help, -1)
		if len(flags) < 5 {
			t.Fatalf("%s -h lists %d flags: the pattern is wrong", cmd, len(flags))
		}
		for _, m := range flags {
			flag := m[1]
			if _, ok := notConfig[sub][flag]; ok {
				continue
			}
			var set []string
			for field, f := range fieldFlags {
				if _, ok := fields.FieldByName(field); ok && f == "-"+flag {
					set = append(set, field)
				}
			}
			if len(set) == 0 {
				t.Errorf("%s -%s sets no field of %v: give it one (and an entry in fieldFlags), or list it in notConfig with the reason", cmd, flag, fields)
			}
		}
	}
}

// Every configuration the command refuses, the library refuses too: a rule
// enforced only by the command fails here. Each refused command line of a
// run, a herd or a timeout (badInputs) is parsed as the command parses it,
// and its configuration given to the library's one rule book:
// pipebench.Prepare, herd.Prepare and timeout.Prepare. Left to the command
// are the flags themselves (a bad value, an unknown flag, a stray argument,
// -f with -b) and the flags of notConfig, which are no part of a
// configuration.
func TestLibraryRefusesWhatTheCommandRefuses(t *testing.T) {
	refused := func(err error) bool {
		var ce *pipebench.ConfigError
		var le *pipebench.LimitError
		return errors.As(err, &ce) || errors.As(err, &le)
	}
	// library parses args as sub does and gives their configuration to the
	// library; ok is false when the command refuses them as flags.
	library := map[string]func(fs *flag.FlagSet, args []string) (err error, ok bool){
		"": func(fs *flag.FlagSet, args []string) (error, bool) {
			var rf runFlags
			rf.register(fs)
			if fs.Parse(args) != nil || fs.NArg() > 0 {
				return nil, false
			}
			set := map[string]bool{}
			fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
			cfg, err := rf.config(set)
			if err != nil {
				return nil, false // -f with -b
			}
			_, err = pipebench.Prepare(cfg, 0, nil)
			return err, true
		},
		"herd": func(fs *flag.FlagSet, args []string) (error, bool) {
			var hf herdFlags
			hf.register(fs)
			if fs.Parse(args) != nil || fs.NArg() > 0 {
				return nil, false
			}
			_, err := herd.Prepare(hf.config(), nil)
			return err, true
		},
		"timeout": func(fs *flag.FlagSet, args []string) (error, bool) {
			var cfg timeout.Config
			var out docOutput
			registerTimeout(fs, &cfg, &out)
			if fs.Parse(args) != nil || fs.NArg() > 0 {
				return nil, false
			}
			_, err := timeout.Prepare(cfg, nil)
			return err, true
		},
	}
	checked := map[string]int{}
	for _, c := range badInputs {
		args := strings.Fields(c.args)
		sub := ""
		if _, ok := subcommands[args[0]]; ok {
			sub, args = args[0], args[1:]
		}
		lib, ok := library[sub]
		if !ok || notConfigFlag(sub, args) {
			continue
		}
		fs := flag.NewFlagSet(sub, flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		err, ok := lib(fs, args)
		if !ok {
			continue // refused as a flag
		}
		checked[sub]++
		if !refused(err) {
			t.Errorf("%s: the command refuses %q, the library does not (%v)", c.name, c.args, err)
		}
	}
	for sub, least := range map[string]int{"": 25, "herd": 2} {
		if checked[sub] < least {
			t.Errorf("subcommand %q: only %d refused configurations checked: the filter is wrong", sub, checked[sub])
		}
	}
}

// notConfigFlag says whether args give a flag of notConfig.
func notConfigFlag(sub string, args []string) bool {
	for _, a := range args {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if _, ok := notConfig[sub][name]; ok && strings.HasPrefix(a, "-") && name != "f" {
			return true
		}
	}
	return false
}
