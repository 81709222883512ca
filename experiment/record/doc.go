// Package record is what every pipebench output shares: the head of its
// JSON record (Head: the record's format and version, the command and
// every flag it ran with, the pipebench build and the machine, read
// through internal/envinfo), the two lines a text output ends with to say
// what made it, the machine's lines (MachineLines: what a kernel A/B
// turns on, wrapped at 80 columns), and Doc, a subcommand's result as the
// formats write it (text, CSV, JSON).
//
// Imports: experiment/text and internal/envinfo, as imports_test.go at
// the module's root allows (the table in docs/contributing.md shows the
// rules).
package record
