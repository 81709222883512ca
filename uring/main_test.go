package uring

import (
	"os"
	"testing"

	"github.com/pipebench/pipebench/pipebench"
)

// TestMain lets this test binary serve as its own writer process, for the
// conformance suite's harness runs.
func TestMain(m *testing.M) {
	pipebench.RunWriterProcessIfAsked()
	os.Exit(m.Run())
}
