package main

import (
	"strings"
	"testing"
)

// TestAsyncPreemptOffRefused: with GODEBUG=asyncpreemptoff=1, a run whose
// writer thread would wait for credits, and the herd with waiter threads,
// are refused before any work, in one line naming the flag and what to
// use instead, exit status 2; a run with a writer process is not.
func TestAsyncPreemptOffRefused(t *testing.T) {
	t.Setenv("GODEBUG", "asyncpreemptoff=1")
	for _, c := range []struct{ args, flag, instead string }{
		{"-writer thread", "-writer thread", "use -writer self or process"},
		{"-n 10", "-writer auto", "use -writer self or process"},
		{"herd", "herd: -mode threads", "use -mode processes"},
	} {
		code, stdout, stderr := invoke(t, strings.Fields(c.args)...)
		want := "pipebench: " + c.flag + " with GODEBUG=asyncpreemptoff=1: "
		if code != 2 || stdout != "" || !strings.HasPrefix(stderr, want) || !strings.Contains(stderr, c.instead) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("pipebench %s: exit %d, stdout %q, stderr %q; want exit 2, one line starting %q and saying %q", c.args, code, stdout, stderr, want, c.instead)
		}
	}
	if code, _, stderr := invoke(t, "-n", "10", "-writer", "process", "-d", "1s", "-i", "500ms", "-warmup", "0"); code != 0 {
		t.Errorf("pipebench -writer process with GODEBUG=asyncpreemptoff=1: exit %d, stderr %q; want it run", code, stderr)
	}
}
