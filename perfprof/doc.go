// Package perfprof turns what Linux perf records into pprof profiles, so that
// kernel and user stacks of a benchmark open in `go tool pprof` and its flame
// graph.
//
// Parse reads the text of `perf script` (run with ScriptArgs) and builds a
// *profile.Profile: kernel frames under a [kernel.kallsyms] mapping (a
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
package perfprof
