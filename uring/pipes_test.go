package uring

import (
	"errors"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/pipebench"
)

// The helpers of the tests of uring-epoll and of the minimum wait.

// registerPipes makes n non-blocking pipes and registers pipe i's read end
// with in under tag i.
func registerPipes(t *testing.T, in pipebench.Interest, n int) [][2]int {
	t.Helper()
	pipes := make([][2]int, n)
	for i := range pipes {
		if err := unix.Pipe2(pipes[i][:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
			t.Fatal(err)
		}
		p := pipes[i]
		t.Cleanup(func() { unix.Close(p[0]); unix.Close(p[1]) })
		if err := in.Add(p[0], int32(i)); err != nil {
			t.Fatal(err)
		}
	}
	return pipes
}

func write1(t *testing.T, fd int) {
	t.Helper()
	if _, err := unix.Write(fd, []byte{1}); err != nil {
		t.Fatal(err)
	}
}

// skipWithoutRing skips where this kernel, or a filter, refuses io_uring.
func skipWithoutRing(t *testing.T) {
	t.Helper()
	r, err := newRing(8, 16, false, 0)
	if err != nil {
		t.Skipf("no io_uring here: %v", err)
	}
	r.close()
}

// openRefused requires f's Open, with options o, to refuse with an
// errors.ErrUnsupported naming release.
func openRefused(t *testing.T, f *pipebench.Factory, o pipebench.Options, release string) {
	t.Helper()
	be, err := f.Open(o)
	if errors.Is(err, errors.ErrUnsupported) && strings.Contains(err.Error(), release) {
		return
	}
	if be != nil {
		be.Close()
	}
	t.Errorf("%s: Open gave %v, want an errors.ErrUnsupported naming %s", f.Name, err, release)
}

// flags name the settings a Check refuses as the command does.
func flags(field, value string) string {
	flag := map[string]string{"Backend": "-b", "MinWait": "-minwait", "Delay": "-delay"}[field]
	if value == "" {
		return flag
	}
	return flag + " " + value
}

// checkRefusal requires err, of a Check given flags, to be a ConfigError
// naming the fields want, in order, and returns its one line.
func checkRefusal(t *testing.T, err error, want ...string) string {
	t.Helper()
	var ce *pipebench.ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("Check gave %v, want a ConfigError", err)
	}
	if got := ce.Fields; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("the error names %v, want %v", got, want)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") {
		t.Errorf("%q: more than one line", msg)
	}
	return msg
}
