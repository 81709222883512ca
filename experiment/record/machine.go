package record

import (
	"fmt"
	"strings"

	"github.com/pipebench/pipebench/internal/envinfo"
)

// MachineLine condenses the environment to one line. lent is how many Ps
// the run added to GOMAXPROCS while it measured, one per thread that sleeps
// in raw system calls (internal/osthread), shown as "GOMAXPROCS 2+2";
// pinning, when not empty, says where those threads ran.
func MachineLine(e envinfo.Environment, lent int, pinning string) string {
	procs := fmt.Sprintf("GOMAXPROCS %d", e.GOMAXPROCS)
	if lent > 0 {
		procs += fmt.Sprintf("+%d lent to the measured threads", lent)
	}
	if pinning != "" {
		procs += ", " + pinning
	}
	parts := []string{
		"Linux " + e.Kernel, e.CPU(), fmt.Sprintf("%d cores", e.Cores), e.GoVersion,
		procs, fmt.Sprintf("fds %d/%d", e.FDSoft, e.FDHard),
		"clock " + e.ClockSource, "mitigations " + e.MitigationSummary(),
	}
	return strings.Join(parts, ", ")
}
