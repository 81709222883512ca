package fdselect

import (
	"testing"

	"github.com/pipebench/pipebench/pipebench/pipebenchtest"
)

func TestSelect(t *testing.T) { pipebenchtest.TestBackend(t, Factory) }

func BenchmarkSelect(b *testing.B) { pipebenchtest.BenchmarkPingPong(b, Factory) }
