package uring

import (
	"errors"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestExplainSetup: each way io_uring_setup can refuse gets one line that
// names the cause and what decides it.
func TestExplainSetup(t *testing.T) {
	for _, c := range []struct {
		name    string
		errno   unix.Errno
		setting string
		want    []string
	}{
		{"disabled", unix.EPERM, "2", []string{"disabled on this machine", "io_uring_disabled = 2"}},
		{"restricted", unix.EPERM, "1", []string{"restricted", "io_uring_disabled = 1", "CAP_SYS_ADMIN", "io_uring_group"}},
		{"seccomp, sysctl allows", unix.EPERM, "0", []string{"not permitted", "io_uring_disabled = 0", "seccomp"}},
		{"seccomp, no sysctl", unix.EPERM, "", []string{"not permitted", "seccomp"}},
		{"not built in", unix.ENOSYS, "", []string{"not available", "CONFIG_IO_URING"}},
		{"memlock", unix.ENOMEM, "0", []string{"128 entries", "RLIMIT_MEMLOCK"}},
		{"other", unix.EINVAL, "0", []string{"io_uring_setup (128 entries)", unix.EINVAL.Error()}},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := explainSetup(128, c.errno, c.setting)
			if !errors.Is(err, c.errno) {
				t.Errorf("%v does not wrap %v: a test could not tell a refusal from a failure", err, c.errno)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("more than one line: %q", msg)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%q does not say %q", msg, w)
				}
			}
		})
	}
}

// TestCheckMultishot: releases before 5.13 are refused with the one-shot
// variant as the remedy; later or unparsable ones are let through.
func TestCheckMultishot(t *testing.T) {
	for _, c := range []struct {
		release string
		refused bool
	}{
		{"5.12.19", true},
		{"4.19.0-21-amd64", true},
		{"5.13.0", false},
		{"5.15.0-91-generic", false},
		{"6.18.44-fc-v669", false},
		{"6.1-rc3", false},
		{"10.0.0", false},
		{"weird", false},
	} {
		err := checkMultishot(c.release)
		if (err != nil) != c.refused {
			t.Errorf("%s: got %v, refused want %v", c.release, err, c.refused)
		}
		if err != nil && !strings.Contains(err.Error(), "-b uring-oneshot") {
			t.Errorf("%s: %v does not name the remedy", c.release, err)
		}
		if err != nil && !errors.Is(err, errors.ErrUnsupported) {
			t.Errorf("%s: %v is not an errors.ErrUnsupported", c.release, err)
		}
	}
}

// TestRefuseRW: without multishot reads the refusal names the operation,
// the release that has it, the variant that does without, and is an
// errors.ErrUnsupported, which tests skip on; the operations uring-rw
// needs are there on this kernel when io_uring is.
func TestRefuseRW(t *testing.T) {
	err := noMultishotRead("6.6.1")
	for _, w := range []string{"IORING_OP_READ_MULTISHOT", "Linux 6.7", "this is 6.6.1", "-b uring-rw-oneshot"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%q does not say %q", err, w)
		}
	}
	if !errors.Is(err, errors.ErrUnsupported) || !errors.Is(errNoRead, errors.ErrUnsupported) {
		t.Errorf("%v, %v: not errors.ErrUnsupported", err, errNoRead)
	}
	r, rerr := newRing(8, 16, false, 0)
	if rerr != nil {
		t.Skipf("no io_uring here: %v", rerr)
	}
	defer r.close()
	v, ok := parseRelease(kernelRelease())
	for _, op := range []struct {
		code  uint8
		since [2]int
	}{{opWrite, [2]int{5, 6}}, {opReadMultishot, [2]int{6, 7}}, {200, [2]int{99, 0}}} {
		has, err := r.supports(op.code)
		if err != nil {
			t.Fatal(err)
		}
		want := ok && (v[0] > op.since[0] || v[0] == op.since[0] && v[1] >= op.since[1])
		if has != want {
			t.Errorf("opcode %d supported %v on %s, want %v (since %d.%d)", op.code, has, kernelRelease(), want, op.since[0], op.since[1])
		}
	}
}
