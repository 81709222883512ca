package main

import (
	"github.com/pipebench/pipebench/pipebench"
)

// The library's rules write the settings they refuse by the caller's
// pipebench.Names; the command's are its flags. fieldFlags is the one map
// from field to flag, for every Config the command fills
// (pipebench.Config, herd.Config, timeout.Config): a field that two of
// them share is set by the same flag in each. A field not in it keeps its
// name.
var fieldFlags = map[string]string{
	// pipebench.Config, the run (and sweep's and seeds' runs).
	"Pipes": "-n", "InFlight": "-l", "Backend": "-b", "Writer": "-writer", "Route": "-route",
	"RouteSeed": "-seed", "Duration": "-d", "Interval": "-i", "Warmup": "-warmup", "Latency": "-latency", "Source": "-fd",
	"Churn": "-churn", "Delay": "-delay", "MinWait": "-minwait", "CPUs": "-cpu", "Spread": "-cpu",
	"Readers": "-readers", "Writers": "-writers", "MaxEvents": "-maxevents", "Nest": "-nest", "Share": "-share",
	"Rate": "-rate",
	// herd.Config, beside the run's.
	"Waiters": "-waiters", "Mode": "-mode", "Exclusive": "-exclusive", "Rounds": "-count",
	// timeout.Config (Rounds as herd's).
	"Timeouts": "-timeouts", "Mechanisms": "-mechanisms", "Samples": "-samples", "Slack": "-slack",
}

// flagNames are the command's Names: each setting by the flag that sets it,
// with its value ("-l 5000"). bypass says that -f chose the bypass: -f is
// -b bypass, and a message then names the flag the user typed.
func flagNames(bypass bool) pipebench.Names {
	return func(field, value string) string {
		if bypass && field == "Backend" && value == pipebench.Bypass.Name {
			return "-f"
		}
		flag, ok := fieldFlags[field]
		if !ok {
			flag = field
		}
		if value == "" {
			return flag
		}
		return flag + " " + value
	}
}
