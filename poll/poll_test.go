package poll

import (
	"testing"

	"github.com/pipebench/pipebench/pipebench/pipebenchtest"
)

func TestPoll(t *testing.T) { pipebenchtest.TestBackend(t, Factory) }

func BenchmarkPoll(b *testing.B) { pipebenchtest.BenchmarkPingPong(b, Factory) }
