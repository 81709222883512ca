package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestUringVariantNames: -b takes an io_uring backend with settings off by
// name, in a run and in a sweep; a name that cannot be is refused in one
// line, exit status 2, before any work.
func TestUringVariantNames(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-b", "uring-rw-sqpoll-nodefer", "-d", "1s"}, exitUsage, "uring-rw-sqpoll does not use defer"},
		{[]string{"sweep", "-b", "bypass,uring-rw-nobatch-nofixed", "-n", "10", "-d", "1s"}, exitUsage, "out of order"},
		{[]string{"-b", "uring-rw-fast", "-d", "1s"}, exitUsage, "-nofixed -nodefer -noregring -notaskrunflag -nobatch"},
		{[]string{"-b", "uring-rw-nofixed-nobatch", "-n", "10", "-l", "2", "-writer", "self", "-d", "300ms", "-i", "100ms"}, exitOK, "uring-rw-nofixed-nobatch, 10 pipes"},
	} {
		var stdout, stderr bytes.Buffer
		code := command(c.args, &stdout, &stderr, nil)
		if strings.Contains(stderr.String(), "io_uring is") {
			t.Skipf("no io_uring here: %s", stderr.String())
		}
		out := stdout.String() + stderr.String()
		if code != c.code || !strings.Contains(out, c.want) {
			t.Errorf("pipebench %s: exit %d, %q; want exit %d saying %q", strings.Join(c.args, " "), code, out, c.code, c.want)
		}
		if c.code == exitUsage && strings.Count(strings.TrimSpace(stderr.String()), "\n") > 0 {
			t.Errorf("pipebench %s: more than one line: %q", strings.Join(c.args, " "), stderr.String())
		}
	}
}
