// Package doccheck keeps README.md and the pages under docs/ true to the
// records their tables were rendered from, and within their budget. A page
// marks a rendered block with an HTML comment naming its source, followed
// by a fenced text block:
//
//	<!-- rendered from results/FILE.json -->
//	<!-- rendered from results/FILE.json, lines 1-29 -->
//	<!-- rendered by: pipebench top -rows 20 results/k.pb.gz -->
//	<!-- rendered by: go tool pprof -diff_base=results/a.pb.gz -top results/b.pb.gz -->
//	<!-- rendered by: ../tools/yardstick/compare.sh -summary ../tools/yardstick/results/FILE.txt -->
//	<!-- rendered by: ../tools/yardstick/compare.sh -history ../tools/yardstick/results/FILE.txt ... -->
//
// or shows the command as the block's first line, its paths from the
// repository's root:
//
//	```text
//	$ pipebench compare docs/results/compare/a.json docs/results/compare/b.json
//
// "rendered from" re-renders a JSON record (a run's, or pipebench herd,
// timeout, seeds or sweep's) as that command's text output, by pipebench
// show (built from the product's module), or holds a .txt record (a table
// as tools/yardstick/compare.sh printed it) as it is;
// "rendered by" runs the command, in the page's directory with paths
// relative to the page: pipebench compare or top (built from the product's
// module), go tool pprof, or compare.sh -summary (a kept table judged
// again, by kind of row) or -history (kept tables judged again, one line
// each). Every command allowed reads records and measures nothing. The
// package's test re-renders every block and fails when a page's block
// differs; go test ./doccheck -update (in tools/) rewrites the blocks.
//
// Its tests also hold README's table of flags against pipebench -h, the
// test commands README gives against .ci/run's, docs/output.md to the
// sections the run's warnings point to, and every page to the budget of
// budget_test.go: no dated heading, no dated sitting, no more lines than
// the page's budget; and every relative link of the pages (Links) to a
// file that exists and, when it names one, a heading that the page it
// points to has (Anchors, the anchors GitHub gives headings).
//
// It lives in the tools module (tools/go.mod), apart from the product,
// and may import any of the product's packages.
package doccheck
