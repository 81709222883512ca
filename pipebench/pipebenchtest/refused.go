package pipebenchtest

import (
	"errors"
	"testing"

	"golang.org/x/sys/unix"
)

// SkipIfRefused skips the test, saying why, when err says that this kernel
// or a security policy refuses the mechanism a backend needs: ENOSYS (not
// built in, or a seccomp filter), EPERM (a seccomp filter, a security
// module, a sysctl) or errors.ErrUnsupported (a kernel too old for it).
// Any other error, and nil, it leaves to the caller, which fails on an
// error: only a refusal is a reason not to test.
func SkipIfRefused(t testing.TB, err error) {
	t.Helper()
	if err != nil && (errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) || errors.Is(err, errors.ErrUnsupported)) {
		t.Skipf("refused here, so not tested: %v", err)
	}
}
