// Package profile holds pipebench's profiles as data: what Linux perf
// records turned into pprof profiles, so that kernel and user stacks of a
// benchmark open in `go tool pprof` and its flame graph, and the tables that
// oprofile printed and the seeds quote (symbols by the samples in which they
// were the running function), computed from any pprof profile and written
// as oprofile printed them.
//
// Parse reads the text of `perf script` (run with ScriptArgs) and builds a
// *pprof.Profile: kernel frames under a [kernel.kallsyms] mapping (a
// module's under its own), user frames at their run-time addresses under
// the mappings of their binaries, the recorded program's first (pprof names
// a profile after it), each sample labelled with its thread's comm, pid,
// tid and, when the caller names them, its role and process. Parse needs no
// perf: it is tested on a recorded fixture.
//
// Recorder runs `perf record -g` on running processes for a measured window:
// Start returns once perf has enabled its events, Stop disables them and ends
// perf, Profile converts the recording. Check says, before any work, whether
// perf is installed and may record kernel stacks here.
//
// Flat, ByLabel and ByLeafSpace group a profile's samples into a Table;
// WriteSavedTop and WriteFileTop write the table oprofile printed (the
// symbols most sampled, with a line summing the profile up by role and by
// kernel against user space).
//
// Profiler runs the profiles of one run's measured window: Begin starts
// them for the processes its caller names (Targets), End stops them, and
// Finish writes them and returns them as Saved; a profile that cannot start
// closes the channel Stop returns, which ends the run. It knows nothing of
// the harness: experiment/report hooks it into a run's configuration.
//
// Imports: nothing of ours, as imports_test.go at the module's root allows
// (the table in docs/contributing.md shows the rules).
package profile
