package herd_test

import (
	"os"
	"testing"

	"github.com/pipebench/pipebench/internal/child"
)

// TestMain lets this test binary serve as its own waiter processes.
func TestMain(m *testing.M) {
	child.Serve()
	os.Exit(m.Run())
}
