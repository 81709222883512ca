package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/pipebench/pipebench/experiment/record"
)

// parseSub parses a subcommand's flags. It prints the help and returns
// exitOK for -h, returns exitUsage after one line naming the bad flag, and
// -1 when the subcommand may go on. The subcommand takes flags only.
func parseSub(fs *flag.FlagSet, args []string, help string, stdout, stderr io.Writer) int {
	if code := parseFlags(fs, args, help, stdout, stderr); code >= 0 {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(stderr, fmt.Errorf("%s: unexpected argument %q: it takes flags only (see pipebench %s -h)", fs.Name(), fs.Arg(0), fs.Name()))
	}
	return -1
}

// parseFlags is parseSub for a subcommand that takes arguments after its
// flags (fs.Args()).
func parseFlags(fs *flag.FlagSet, args []string, help string, stdout, stderr io.Writer) int {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, reflow(help))
			printFlags(stdout, fs)
			return exitOK
		}
		return usageError(stderr, fmt.Errorf("%s: %w", fs.Name(), err))
	}
	return -1
}

// formatFlag registers -format with the experiment subcommands' formats.
func formatFlag(fs *flag.FlagSet, v *string) {
	*v = "text"
	fs.Var(choiceFlag{v, func(s string) error {
		if !slices.Contains(record.Formats, s) {
			return fmt.Errorf("unknown format %q: want %s", s, strings.Join(record.Formats, ", "))
		}
		return nil
	}}, "format", "output format: "+strings.Join(record.Formats, ", "))
}

// finish writes doc (nil when nothing was measured) in format, then turns
// the run's error and any writing error into the exit status.
func finish(name string, stdout, stderr io.Writer, format string, doc record.Doc, runErr error) int {
	var werr error
	if doc != nil {
		werr = record.Write(stdout, format, doc)
	}
	if runErr != nil {
		fmt.Fprintf(stderr, "pipebench: %s: %v\n", name, runErr)
		return exitFailed
	}
	if werr != nil {
		fmt.Fprintf(stderr, "pipebench: %s: writing the output: %v\n", name, werr)
		return exitFailed
	}
	return exitOK
}
