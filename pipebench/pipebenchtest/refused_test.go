package pipebenchtest

import (
	"errors"
	"fmt"
	"testing"

	"golang.org/x/sys/unix"
)

// TestSkipIfRefused: a refusal by the kernel or a filter (ENOSYS, EPERM, an
// unsupported feature), however wrapped, skips; nil and any other error do
// not, so that the caller fails on them.
func TestSkipIfRefused(t *testing.T) {
	for _, c := range []struct {
		err  error
		skip bool
	}{
		{fmt.Errorf("open backend uring: io_uring is not available: io_uring_setup: %w", unix.ENOSYS), true},
		{fmt.Errorf("io_uring is disabled on this machine (io_uring_setup: %w)", unix.EPERM), true},
		{fmt.Errorf("multishot poll needs Linux 5.13 (%w)", errors.ErrUnsupported), true},
		{nil, false},
		{fmt.Errorf("io_uring_setup (64 entries): %w", unix.EINVAL), false},
		{fmt.Errorf("mmap io_uring region: %w", unix.ENOMEM), false},
	} {
		var sub *testing.T
		t.Run(fmt.Sprint(c.err), func(t *testing.T) {
			sub = t
			SkipIfRefused(t, c.err)
		})
		if sub.Skipped() != c.skip {
			t.Errorf("%v: skipped %v, want %v", c.err, sub.Skipped(), c.skip)
		}
	}
}
