package herd_test

import (
	"os"
	"testing"

	"github.com/pipebench/pipebench/experiment/herd"
)

// TestMain lets this test binary serve as its own waiter processes.
func TestMain(m *testing.M) {
	herd.RunWaiterProcessIfAsked()
	os.Exit(m.Run())
}
