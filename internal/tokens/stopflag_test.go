package tokens

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestSharedFlag: a store to the stop flag is seen through another mapping
// of its memfd, as the writer process maps it.
func TestSharedFlag(t *testing.T) {
	f, fd, err := NewSharedFlag()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Unmap()
	g, err := MapSharedFlag(fd)
	unix.Close(fd)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Unmap()
	if g.Flag.Load() {
		t.Fatal("a new flag is set")
	}
	f.Flag.Store(true)
	if !g.Flag.Load() {
		t.Error("the flag set through one mapping is clear through the other")
	}
}
