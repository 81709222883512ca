package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/pipebench/pipebench/experiment/herd"
	"github.com/pipebench/pipebench/experiment/record"
	"github.com/pipebench/pipebench/experiment/report"
	"github.com/pipebench/pipebench/experiment/seeds"
	"github.com/pipebench/pipebench/experiment/sweep"
	"github.com/pipebench/pipebench/experiment/timeout"
)

func init() {
	subcommands["show"] = subcommand{
		summary: "print a record's text output again (-o FILE.json), -v for a run's every figure",
		run:     showCommand,
	}
}

// showCommand is pipebench show [-v] FILE.json: the text the command that
// wrote the record printed, or would have printed with -v.
func showCommand(args []string, stdout, stderr io.Writer, _ <-chan struct{}) int {
	fs := flag.NewFlagSet("pipebench show", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	verbose := fs.Bool("v", false, "a run's record: every figure, as the run's -v prints them")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, reflow("usage: pipebench show [-v] FILE.json\n\nPrints the text output of the command that wrote a record (pipebench, sweep, herd, timeout or seeds with -o FILE.json), as it printed it then, from the record alone: nothing is measured.\n\n"))
			printFlags(stdout, fs)
			return exitOK
		}
		return usageError(stderr, fmt.Errorf("show: %w", err))
	}
	if fs.NArg() != 1 {
		return usageError(stderr, errors.New("show takes one record: pipebench show [-v] FILE.json"))
	}
	doc, err := readDoc(fs.Arg(0))
	if err != nil {
		return usageError(stderr, fmt.Errorf("show: %w", err))
	}
	write := doc.WriteText
	if *verbose {
		run, ok := doc.(*report.Doc)
		if !ok {
			return usageError(stderr, fmt.Errorf("show: -v: %s is not a run's record, and only a run's text has more to show", fs.Arg(0)))
		}
		write = run.WriteTextVerbose
	}
	if err := write(stdout); err != nil {
		fmt.Fprintf(stderr, "pipebench: show: %s: %v\n", fs.Arg(0), err)
		return exitFailed
	}
	return exitOK
}

// readDoc reads the record at path as the Doc of the command that wrote
// it: a run's or a subcommand's.
func readDoc(path string) (record.Doc, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, errors.Unwrap(err))
	}
	var head record.Head
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("%s: not a record (want a file written by pipebench -o FILE.json): %v", path, err)
	}
	if why := head.Unreadable("show"); why != "" {
		return nil, fmt.Errorf("%s: %s", path, why)
	}
	var doc record.Doc
	switch head.Command {
	case "run":
		doc = &report.Doc{}
	case "sweep":
		doc = &sweep.Doc{}
	case "herd":
		doc = &herd.Doc{}
	case "timeout":
		doc = &timeout.Doc{}
	case "seeds":
		doc = &seeds.Doc{}
	default:
		return nil, fmt.Errorf("%s: a record of pipebench %s: show reads the records of runs, sweeps, herds, timeouts and seeds", path, head.Command)
	}
	if err := json.Unmarshal(data, doc); err != nil {
		return nil, fmt.Errorf("%s: not a record of pipebench %s: %v", path, head.Command, err)
	}
	return doc, nil
}
