package poll

import (
	"os"
	"testing"

	"github.com/pipebench/pipebench/internal/child"
	"github.com/pipebench/pipebench/pipebench/pipebenchtest"
)

func TestPoll(t *testing.T) { pipebenchtest.TestMechanism(t, Factory) }

func BenchmarkPoll(b *testing.B) { pipebenchtest.BenchmarkPingPong(b, Factory) }

// TestMain lets this test binary serve as its own writer process, for the
// conformance suite's harness runs.
func TestMain(m *testing.M) {
	child.Serve()
	os.Exit(m.Run())
}
