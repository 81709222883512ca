package uring

import (
	"os"
	"testing"

	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/pipebench/pipebenchtest"
)

// TestMain lets this test binary serve as its own writer process.
func TestMain(m *testing.M) {
	pipebench.RunWriterProcessIfAsked()
	os.Exit(m.Run())
}

// TestRuns runs the harness on both variants in every writer mode.
func TestRuns(t *testing.T) {
	for _, f := range Factories {
		t.Run(f.Name, func(t *testing.T) { pipebenchtest.TestRuns(t, &f, pipebenchtest.RunCases) })
	}
}
