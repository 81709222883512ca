// Package doccheck keeps the tables of README.md and docs/ true to the
// records they were rendered from. A page marks a rendered block with an
// HTML comment naming its source, followed by a fenced text block:
//
//	<!-- rendered from results/FILE.json -->
//	<!-- rendered from results/FILE.json, lines 1-29 -->
//	<!-- rendered by: pipebench top -rows 20 results/k.pb.gz -->
//	<!-- rendered by: go tool pprof -diff_base=results/a.pb.gz -top results/b.pb.gz -->
//	<!-- rendered by: ../yardstick/compare.sh -summary results/speed/FILE.txt -->
//	<!-- rendered by: ../yardstick/compare.sh -history results/speed/FILE.txt ... -->
//
// "rendered from" re-renders a subcommand's JSON record (pipebench herd,
// timeout, seeds or sweep) as that subcommand's text output, or holds a
// .txt record (a table as yardstick/compare.sh printed it) as it is; "rendered
// by" runs the command, pipebench built from this module, go tool pprof or
// yardstick/compare.sh -summary (a kept table judged again, by kind of
// row) or -history (kept tables judged again, one line each), in the
// page's directory. Paths are relative to the page. The package's
// test re-renders every block and fails when a page's block differs;
// go test ./internal/doccheck -update rewrites the blocks. It also holds
// README's table of flags against pipebench -h: every flag, every default.
//
// Imports: as imports_test.go at the module's root allows (the table in
// docs/contributing.md shows the rules).
package doccheck
