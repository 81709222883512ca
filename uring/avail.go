package uring

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// disabledSysctl says who may create rings (Linux 6.6): 0 everyone, 1 only
// CAP_SYS_ADMIN and the group in io_uring_group, 2 nobody.
const disabledSysctl = "/proc/sys/kernel/io_uring_disabled"

// setupError turns a failed io_uring_setup into one line that says why
// io_uring cannot be used here and what decides it.
func setupError(entries uint32, e unix.Errno) error {
	b, err := os.ReadFile(disabledSysctl)
	setting := ""
	if err == nil {
		setting = strings.TrimSpace(string(b))
	}
	return explainSetup(entries, e, setting)
}

// explainSetup is setupError's wording, given the errno and the sysctl's
// value ("" when the file is missing: a kernel before 6.6). The errno is
// always wrapped, so that callers (tests that skip where io_uring is
// refused) can tell ENOSYS and EPERM from other failures.
func explainSetup(entries uint32, e unix.Errno, setting string) error {
	switch e {
	case unix.ENOSYS:
		return fmt.Errorf("io_uring is not available: io_uring_setup: %w (kernel built without CONFIG_IO_URING, or a seccomp filter refuses it)", e)
	case unix.EPERM:
		switch setting {
		case "2":
			return fmt.Errorf("io_uring is disabled on this machine (%s = 2): no process may create a ring (io_uring_setup: %w)", disabledSysctl, e)
		case "1":
			return fmt.Errorf("io_uring is restricted on this machine (%s = 1): only CAP_SYS_ADMIN or the group in /proc/sys/kernel/io_uring_group may create a ring (io_uring_setup: %w)", disabledSysctl, e)
		case "":
			return fmt.Errorf("io_uring is not permitted: io_uring_setup: %w (a seccomp filter or security module refuses it)", e)
		}
		return fmt.Errorf("io_uring is not permitted: io_uring_setup: %w although %s = %s (a seccomp filter or security module refuses it)", e, disabledSysctl, setting)
	case unix.ENOMEM:
		return fmt.Errorf("io_uring_setup (%d entries): %w (kernels before 5.12 charge rings to RLIMIT_MEMLOCK: ulimit -l)", entries, e)
	}
	return fmt.Errorf("io_uring_setup (%d entries): %w", entries, e)
}

// errNoExtArg refuses kernels whose io_uring_enter cannot wait with a
// timeout, which the Mechanism contract needs. Like every refusal for want
// of a kernel feature, it is an errors.ErrUnsupported.
var errNoExtArg = fmt.Errorf("io_uring on this kernel lacks IORING_FEAT_EXT_ARG (Linux 5.11): io_uring_enter cannot wait with a timeout: %w", errors.ErrUnsupported)

// multishotKernel is the first release with IORING_POLL_ADD_MULTI. The
// kernel has no feature bit for it, so the release number decides.
var multishotKernel = [2]int{5, 13}

// checkMultishot refuses multishot poll on a kernel release before 5.13,
// naming the one-shot backend as the remedy.
func checkMultishot(release string) error {
	v, ok := parseRelease(release)
	if !ok {
		return nil // an unknown scheme: let the kernel answer
	}
	if v[0] < multishotKernel[0] || v[0] == multishotKernel[0] && v[1] < multishotKernel[1] {
		return fmt.Errorf("multishot poll (IORING_POLL_ADD_MULTI) needs Linux %d.%d, this is %s: use -b uring-oneshot (%w)",
			multishotKernel[0], multishotKernel[1], release, errors.ErrUnsupported)
	}
	return nil
}

// parseRelease reads "major.minor" from the front of a kernel release such
// as "6.18.44-fc-v669".
func parseRelease(s string) ([2]int, bool) {
	parts := strings.SplitN(s, ".", 3)
	if len(parts) < 2 {
		return [2]int{}, false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor := parts[1]
	if i := strings.IndexFunc(minor, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		minor = minor[:i]
	}
	m, err2 := strconv.Atoi(minor)
	if err1 != nil || err2 != nil {
		return [2]int{}, false
	}
	return [2]int{major, m}, true
}

// kernelRelease is uname -r.
func kernelRelease() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return ""
	}
	return unix.ByteSliceToString(u.Release[:])
}
