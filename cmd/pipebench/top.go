package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	pprofile "github.com/google/pprof/profile"

	"github.com/pipebench/pipebench/internal/profile"
	"github.com/pipebench/pipebench/pipebench"
)

func init() {
	subcommands["top"] = subcommand{
		summary: "print the top symbols of a saved profile (-cpuprofile, -kprofile)",
		run:     topCommand,
	}
}

// topCommand is pipebench top [-rows N] [-role R] FILE.
func topCommand(args []string, stdout, stderr io.Writer, _ <-chan struct{}) int {
	fs := flag.NewFlagSet("pipebench top", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	rows := profile.TopRows
	fs.Var(intFlag{&rows, 1, 1000000, "rows"}, "rows", "symbols to show")
	roles := []string{pipebench.RoleReader, pipebench.RoleWriter, pipebench.RoleSelf, profile.OtherRole}
	role := new(string)
	fs.Var(choiceFlag{role, func(s string) error {
		if !slices.Contains(roles, s) {
			return fmt.Errorf("unknown role %q: want %s", s, strings.Join(roles, ", "))
		}
		return nil
	}}, "role", "count only the samples of this role: "+strings.Join(roles, ", "))
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, reflow("usage: pipebench top [-rows N] [-role ROLE] FILE\n\nPrints the symbols in which a profile's samples were taken (flat, self time), as oprofile did.\n\n"))
			printFlags(stdout, fs)
			return exitOK
		}
		return usageError(stderr, fmt.Errorf("top: %w", err))
	}
	if fs.NArg() != 1 {
		return usageError(stderr, errors.New("top takes one profile file: pipebench top [-rows N] [-role ROLE] FILE"))
	}
	path := fs.Arg(0)
	f, err := os.Open(path)
	if err != nil {
		return usageError(stderr, fmt.Errorf("top: %w", err))
	}
	prof, err := pprofile.Parse(f)
	f.Close()
	if err != nil {
		return usageError(stderr, fmt.Errorf("top: %s is not a pprof profile: %w", path, err))
	}
	if err := profile.WriteFileTop(stdout, path, prof, rows, *role); err != nil {
		fmt.Fprintf(stderr, "pipebench: top: %v\n", err)
		return exitFailed
	}
	return exitOK
}
