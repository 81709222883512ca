package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pipebench/pipebench/experiment/record"
)

// recordOf begins the record of command (run with args, parsed into fs):
// every flag of fs with its value, defaults included, so that no flag can
// go unrecorded.
func recordOf(command string, fs *flag.FlagSet, args []string) record.Head {
	flags := map[string]string{}
	fs.VisitAll(func(f *flag.Flag) { flags[f.Name] = f.Value.String() })
	return record.New(command, args, flags)
}

// isSet says whether the flag name was given on the command line.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// jsonByName makes -format json the default when -o names a .json file:
// a record is what a file of that name is for.
func jsonByName(fs *flag.FlagSet, out string, format *string) {
	if out != "" && strings.EqualFold(filepath.Ext(out), ".json") && !isSet(fs, "format") {
		*format = "json"
	}
}

// docOutput is -format and -o of the experiment subcommands.
type docOutput struct{ format, out string }

func (o *docOutput) register(fs *flag.FlagSet) {
	formatFlag(fs, &o.format)
	fs.StringVar(&o.out, "o", "", "write the output to this file instead of stdout (-format json unless given, when the name ends in .json)")
}

// check settles the format and makes sure the file can be written, before
// any work.
func (o *docOutput) check(fs *flag.FlagSet) error {
	jsonByName(fs, o.out, &o.format)
	if o.out != "" {
		if err := checkWritable(o.out); err != nil {
			return fmt.Errorf("-o %s: cannot write there: %w", o.out, err)
		}
	}
	return nil
}

// finish writes doc (nil when nothing was measured) to stdout or -o's
// file, then turns the run's error and any writing error into the exit
// status.
func (o *docOutput) finish(name string, stdout, stderr io.Writer, doc record.Doc, runErr error) int {
	w := stdout
	if o.out != "" && doc != nil {
		f, err := os.Create(o.out)
		if err != nil {
			fmt.Fprintf(stderr, "pipebench: %s: -o %s: %v\n", name, o.out, err)
			return exitFailed
		}
		defer func() {
			if err := f.Close(); err != nil {
				fmt.Fprintf(stderr, "pipebench: %s: -o %s: %v\n", name, o.out, err)
			}
		}()
		w = f
	}
	return finish(name, w, stderr, o.format, doc, runErr)
}
