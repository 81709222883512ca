package pipebench_test

import (
	"os"
	"testing"

	"github.com/pipebench/pipebench/internal/child"
)

// TestMain lets this test binary serve as its own writer process.
func TestMain(m *testing.M) {
	child.Serve()
	os.Exit(m.Run())
}
