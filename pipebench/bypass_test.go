package pipebench_test

import (
	"testing"

	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/pipebench/pipebenchtest"
)

// TestBypass is the conformance suite on the bypass, a Driver that reads on
// the reader thread: registration, and the harness runs with the self
// writer (the one it runs with).
func TestBypass(t *testing.T) { pipebenchtest.TestBackend(t, pipebench.Bypass) }
