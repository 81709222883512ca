package record

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/pipebench/pipebench/experiment/text"
	"github.com/pipebench/pipebench/internal/envinfo"
)

// The JSON of every pipebench command is a record: it names its format and
// version, the command and every flag it ran with, the pipebench build and
// the machine, so that a record read a year later (or by pipebench
// compare) says what it measured and where.
const (
	Format = "pipebench-record"
	// Version is the version of the record format this pipebench writes.
	// Version 1 is the JSON before records had a format field; 2 adds it
	// with the flags, the build and the machine's added facts, and the
	// repetitions of sweep, herd, timeout and seeds (-count); 3 makes a
	// run's config block pipebench.Config's JSON, every setting; 4 makes a
	// run summary's warnings values (their kind and figures) where they
	// were sentences, and leaves the sample's own out (its n, noisy, cv
	// say them).
	Version = 4
	// OldestVersion is the oldest version compare reads: versions 2 to 4
	// differ in the config block and the warnings only, which compare does
	// not read.
	OldestVersion = 2
)

// Head is the head of every JSON output: Tool and Started were there
// before the rest.
type Head struct {
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

// New begins the record of command, run with args whose every flag and
// value is in flags, on this machine now.
func New(command string, args []string, flags map[string]string) Head {
	tool := "pipebench"
	if command != "run" {
		tool += " " + command
	}
	return Head{Format: Format, FormatVersion: Version, Tool: tool, Command: command,
		Args: append([]string{}, args...), Flags: flags, Pipebench: envinfo.ReadBuild(),
		Started: time.Now().UTC(), Environment: envinfo.Read()}
}

// CommandLine is the command as it was given, ready to paste into a shell.
func (h *Head) CommandLine() string {
	words := []string{"pipebench"}
	if h.Command != "run" && h.Command != "" {
		words = append(words, h.Command)
	}
	for _, a := range h.Args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`*?[]{}()<>|&;#~") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		words = append(words, a)
	}
	return strings.Join(words, " ")
}

// WriteLines writes the lines a text output ends with to say what made
// it: the command (wrapped at text.Width) and the pipebench build. A head
// not made by a command (a test's) writes none.
func (h *Head) WriteLines(w io.Writer) error {
	if h.Format == "" {
		return nil
	}
	lines := append(text.Labelled("command", h.CommandLine()), text.Labelled("pipebench", fmt.Sprintf("%s (%s)", h.Pipebench, h.Pipebench.Module))...)
	_, err := fmt.Fprintf(w, "%s\n", strings.Join(lines, "\n"))
	return err
}

// Unreadable says why this pipebench cannot read a record with this head
// back (by its format and version), for a line naming the record; "" when
// it can. verb names what was to be done with it ("compare", "show").
func (h *Head) Unreadable(verb string) string {
	switch {
	case h.Format == "" && strings.HasPrefix(h.Tool, "pipebench"):
		return "written by an older pipebench, before records named their format (version 1): record it again"
	case h.Format != Format:
		return fmt.Sprintf("not a pipebench record (format %q, want %q)", h.Format, Format)
	case h.FormatVersion > Version:
		return fmt.Sprintf("record format version %d is newer than this pipebench reads (%d): %s it with a newer pipebench", h.FormatVersion, Version, verb)
	case h.FormatVersion < OldestVersion:
		return fmt.Sprintf("record format version %d: want %d to %d", h.FormatVersion, OldestVersion, Version)
	}
	return ""
}
