package main

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// helpWidth is the widest line of -h, as of every output.
const helpWidth = 80

// verboseUsage is -v's line in -h.
const verboseUsage = "the text output's every figure: the interval's confidence interval, " +
	"calls per event, every thread and process and their context switches per second, the pacing, " +
	"GOMAXPROCS and more of the machine (the JSON record always has them)"

// placeholders name the value a flag takes, as -h shows it ("-n pipes");
// a list flag's is "list", a flag not named here Go's own ("value").
var placeholders = map[string]string{
	"n": "pipes", "l": "tokens", "b": "backend", "writer": "mode", "route": "route", "seed": "n",
	"d": "duration", "i": "duration", "warmup": "intervals", "count": "runs", "rate": "tokens/s",
	"format": "format", "o": "file", "kprofile": "file", "perfdata": "file", "cpuprofile": "file",
	"fd": "source", "churn": "fds", "delay": "duration", "minwait": "duration", "cpu": "cpus",
	"readers": "threads", "writers": "threads", "maxevents": "fds", "nest": "levels",
	"plot": "file", "ref": "file.csv", "ratios": "list", "refine": "factor", "unit": "unit",
	"pipes-per": "what", "waiters": "threads", "mode": "mode", "exclusive": "settings",
	"timeouts": "list", "mechanisms": "list", "samples": "n", "slack": "duration",
	"by": "flag", "base": "value", "metric": "figure", "floor": "percent",
	"role": "role", "rows": "n",
}

// ranged is a flag whose values lie in a range -h shows.
type ranged interface{ allowed() string }

// usage writes pipebench -h: what it does, its flags, examples, and the
// subcommands.
func usage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, "usage: pipebench [flags]\n       pipebench SUBCOMMAND [flags]\n\n"+
		"Measures how Linux tells a program a descriptor is ready (select, poll, epoll,\n"+
		"io_uring, the Go netpoller) on N pipes with L tokens in flight. It prints\n"+
		"epoll_pipe_bench's line per interval, then a summary (docs/output.md).\n\n")
	printFlags(w, fs)
	fmt.Fprint(w, examples)
	if len(subcommands) > 0 {
		names := make([]string, 0, len(subcommands))
		for n := range subcommands {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintf(w, "\nsubcommands (pipebench SUBCOMMAND -h for their flags):\n")
		for _, n := range names {
			for _, l := range wrap(subcommands[n].summary, 12) {
				fmt.Fprintf(w, "  %-10s%s\n", n, l)
				n = ""
			}
		}
	}
}

// examples are -h's recipes, README's jobs.
const examples = `
examples:
  pipebench -n 10000 -l 10
      epoll_pipe_bench's run: 10000 pipes, 10 tokens in flight, epoll
  pipebench -b poll -n 1000 -cpu 0,1 -count 6 -o poll.json
      six runs of poll, reader on CPU 0, writer on CPU 1, kept as a record
  pipebench -b epoll -n 1000 -writer thread -rate 100k -latency
      a fixed load of 100000 tokens/s: what it costs, how late tokens are read
  pipebench -n 1000 -l 10 -kprofile k.pb.gz && go tool pprof -http :8080 k.pb.gz
      a flame graph of the kernel's and the program's stacks (perf records)
  pipebench sweep -b poll,epoll -plot scaling.svg
      poll against epoll as the pipes grow, drawn
  pipebench compare a1.json a2.json vs b1.json b2.json
      kernel A against kernel B, two records a side (docs/compare.md)
`

// reflow is a subcommand's help with its prose paragraphs wrapped at
// helpWidth; the usage paragraph and indented lines (commands, lists) stay
// as written.
func reflow(help string) string {
	paras := strings.Split(help, "\n\n")
	for i, p := range paras {
		if strings.HasPrefix(p, "usage:") {
			paras[i] = usageLines(p)
			continue
		}
		if strings.HasPrefix(p, " ") || strings.Contains(p, "\n ") || strings.TrimSpace(p) == "" {
			continue
		}
		trail := ""
		if strings.HasSuffix(p, "\n") {
			trail = "\n"
		}
		paras[i] = strings.Join(wrap(p, 0), "\n") + trail
	}
	return strings.Join(paras, "\n\n")
}

// usageLines breaks each usage line wider than helpWidth before a "["
// that fits, the rest under the command's name.
func usageLines(p string) string {
	lines := strings.Split(p, "\n")
	var out []string
	for _, l := range lines {
		for len([]rune(l)) > helpWidth {
			cut := strings.LastIndex(string([]rune(l)[:helpWidth]), " [")
			if cut <= len("usage:") {
				break
			}
			out = append(out, l[:cut])
			l = "      " + l[cut:]
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// printFlags writes fs's flags as -h shows them, in order of name: the
// flag with its placeholder, then what it does, the values allowed and its
// default, wrapped at helpWidth.
//
//	-n pipes
//	      number of pipes; 1..1000000 (default 1000)
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		head := "  -" + f.Name
		if p := placeholder(f); p != "" {
			head += " " + p
		}
		text := f.Usage
		if r, ok := f.Value.(ranged); ok {
			text += "; " + r.allowed()
		}
		if def := f.DefValue; def != "" && !(isBool(f) && def == "false") {
			text += " (default " + def + ")"
		}
		fmt.Fprintln(w, head)
		for _, l := range wrap(text, 8) {
			fmt.Fprintf(w, "        %s\n", l)
		}
	})
}

// placeholder is the word after a flag's name in -h: none for a switch.
func placeholder(f *flag.Flag) string {
	if isBool(f) {
		return ""
	}
	if _, ok := f.Value.(interface{ list() }); ok {
		return "list"
	}
	if p, ok := placeholders[f.Name]; ok {
		return p
	}
	name, _ := flag.UnquoteUsage(f)
	return name
}

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// wrap breaks s into lines that fit helpWidth after indent columns; a
// "(default ...)" at its end stays whole.
func wrap(s string, indent int) []string {
	var lines []string
	line := ""
	words := strings.Fields(s)
	for i := 0; i < len(words); i++ {
		word := words[i]
		if strings.HasPrefix(word, "(default") && !strings.HasSuffix(word, ")") && i+1 < len(words) {
			word += " " + strings.Join(words[i+1:], " ")
			i = len(words)
		}
		switch {
		case line == "":
			line = word
		case indent+len([]rune(line))+1+len([]rune(word)) > helpWidth:
			lines = append(lines, line)
			line = word
		default:
			line += " " + word
		}
	}
	return append(lines, line)
}
