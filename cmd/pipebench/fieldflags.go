package main

import (
	"errors"

	"github.com/pipebench/pipebench/pipebench"
)

// The library's errors name the settings at fault by their Config field
// and value (pipebench.Message); the command names them by the flags that
// set them. fieldFlags is the one map from field to flag, for every Config
// the command fills (pipebench.Config, herd.Config, timeout.Config): a
// field that two of them share is set by the same flag in each. A field not
// in it keeps its name.
var fieldFlags = map[string]string{
	// pipebench.Config, the run (and sweep's and seeds' runs).
	"Pipes": "-n", "InFlight": "-l", "Backend": "-b", "Writer": "-writer", "Route": "-route",
	"Seed": "-seed", "Duration": "-d", "Interval": "-i", "Latency": "-latency", "Source": "-fd",
	"Churn": "-churn", "Delay": "-delay", "MinWait": "-minwait", "CPUs": "-cpu", "Spread": "-cpu",
	"Readers": "-readers", "Writers": "-writers", "MaxEvents": "-maxevents", "Nest": "-nest", "Share": "-share",
	"Rate": "-rate",
	// herd.Config, beside the run's.
	"Waiters": "-waiters", "Mode": "-mode", "Exclusive": "-exclusive", "Rounds": "-count",
	// timeout.Config (Rounds as herd's).
	"Timeouts": "-timeouts", "Mechanisms": "-mechanisms", "Samples": "-samples", "Slack": "-slack",
}

// flagOf is the flag that sets field.
func flagOf(field string) string {
	if flag, ok := fieldFlags[field]; ok {
		return flag
	}
	return field
}

// flagErr is err with the Config settings it names written as the flags
// that set them ("-l 5000"). bypass says that -f chose the bypass: -f is
// -b bypass, and the message then names the flag the user typed.
func flagErr(err error, bypass bool) error {
	if err == nil {
		return nil
	}
	return errors.New(pipebench.RenderError(err, func(field, value string) string {
		if bypass && field == "Backend" && value == pipebench.Bypass.Name {
			return "-f"
		}
		if value == "" {
			return flagOf(field)
		}
		return flagOf(field) + " " + value
	}))
}

// err is err with the Config settings it names written as the run flags
// that set them.
func (rf *runFlags) err(err error) error { return flagErr(err, rf.bypass) }
