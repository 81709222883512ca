package main

import (
	"errors"
	"strings"

	"github.com/pipebench/pipebench/pipebench"
)

// The library's errors name the settings at fault by their Config field
// ({InFlight}, see pipebench.FieldMessage); the command names the flags that
// set them. Each Config the command fills has its map from field to flag; a
// field not in it keeps its name.
type flagNames map[string]string

var (
	runFlagNames = flagNames{
		"Pipes": "-n", "InFlight": "-l", "Backend": "-b", "Writer": "-writer", "Route": "-route",
		"Seed": "-seed", "Duration": "-d", "Interval": "-i", "Latency": "-latency", "Source": "-fd",
		"Churn": "-churn", "Delay": "-delay", "CPUs": "-cpu", "Spread": "-cpu",
		"Readers": "-readers", "Writers": "-writers", "MaxEvents": "-maxevents", "Nest": "-nest", "Share": "-share",
	}
	herdFlagNames = flagNames{
		"Waiters": "-waiters", "Pipes": "-n", "InFlight": "-l", "Mode": "-mode", "Exclusive": "-exclusive",
		"Seed": "-seed", "Duration": "-d", "Interval": "-i",
	}
	timeoutFlagNames = flagNames{
		"Timeouts": "-timeouts", "Mechanisms": "-mechanisms", "Samples": "-samples", "Slack": "-slack",
	}
)

// of is the flag of field.
func (f flagNames) of(field string) string {
	if flag, ok := f[field]; ok {
		return flag
	}
	return field
}

// err is err with the Config fields it names written as flags.
func (f flagNames) err(err error) error {
	if err == nil {
		return nil
	}
	return errors.New(pipebench.RenderError(err, f.of))
}

// err is err with the Config fields it names written as the run flags that
// set them. -f is -b bypass: when -f chose the bypass, the message names
// -f.
func (rf *runFlags) err(err error) error {
	if err = runFlagNames.err(err); err == nil || !rf.bypass {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), "-b "+pipebench.Bypass.Name, "-f"))
}
