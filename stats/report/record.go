package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/pipebench/pipebench/internal/envinfo"
)

// The JSON of every pipebench command is a record: it names its format and
// version, the command and every flag it ran with, the pipebench build and
// the machine, so that a record read a year later (or by pipebench
// compare) says what it measured and where.
const (
	RecordFormat = "pipebench-record"
	// RecordVersion is the version of the record format this pipebench
	// writes. Version 1 is the JSON before records had a format field; 2
	// adds it with the flags, the build and the machine's added facts, and
	// the repetitions of sweep, herd, timeout and seeds (-count); 3 makes a
	// run's config block pipebench.Config's JSON, every setting.
	RecordVersion = 3
	// OldestRecordVersion is the oldest version compare reads: versions 2
	// and 3 differ in the config block only, which compare does not read.
	OldestRecordVersion = 2
)

// Record is the head of every JSON output: Tool and Started were there
// before the rest.
type Record struct {
	Format        string `json:"format"`
	FormatVersion int    `json:"format_version"`
	Tool          string `json:"tool"`
	// Command is the subcommand ("run" for a plain run); Args the command
	// line as given, after the program's name.
	Command string   `json:"command"`
	Args    []string `json:"args"`
	// Flags holds every flag of the command with the value it ran with,
	// defaults included, as the flag would be given on the command line.
	Flags       map[string]string   `json:"flags"`
	Pipebench   envinfo.Build       `json:"pipebench"`
	Started     time.Time           `json:"started"`
	Environment envinfo.Environment `json:"environment"`
}

// NewRecord begins the record of command, run with args whose every flag
// and value is in flags, on this machine now.
func NewRecord(command string, args []string, flags map[string]string) Record {
	tool := "pipebench"
	if command != "run" {
		tool += " " + command
	}
	return Record{Format: RecordFormat, FormatVersion: RecordVersion, Tool: tool, Command: command,
		Args: append([]string{}, args...), Flags: flags, Pipebench: envinfo.ReadBuild(),
		Started: time.Now().UTC(), Environment: envinfo.Read()}
}

// CommandLine is the command as it was given, ready to paste into a shell.
func (r *Record) CommandLine() string {
	words := []string{"pipebench"}
	if r.Command != "run" && r.Command != "" {
		words = append(words, r.Command)
	}
	for _, a := range r.Args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`*?[]{}()<>|&;#~") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		words = append(words, a)
	}
	return strings.Join(words, " ")
}

// writeRecordLines writes the two lines of a text output that say what
// made it: the command and the pipebench build.
func writeRecordLines(w io.Writer, r *Record) error {
	if r.Format == "" {
		return nil // a document not made by a command (tests)
	}
	_, err := fmt.Fprintf(w, "command        %s\npipebench      %s (%s)\n", r.CommandLine(), r.Pipebench, r.Pipebench.Module)
	return err
}
