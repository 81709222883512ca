package tokens

import "testing"

// TestAsyncPreemptOff reads GODEBUG as the runtime does: the last
// asyncpreemptoff setting counts, any number but 0 turns preemption off,
// and a value that is not a number leaves the setting before it.
func TestAsyncPreemptOff(t *testing.T) {
	for _, c := range []struct {
		godebug string
		off     bool
	}{
		{"", false},
		{"asyncpreemptoff=1", true},
		{"gctrace=1,asyncpreemptoff=1", true},
		{"asyncpreemptoff=0", false},
		{"asyncpreemptoff=1,asyncpreemptoff=0", false},
		{"asyncpreemptoff=0,asyncpreemptoff=2", true},
		{"asyncpreemptoff=1,asyncpreemptoff=x", true},
		{"xasyncpreemptoff=1", false},
		{"asyncpreemptoff=10ms", false},
	} {
		t.Setenv("GODEBUG", c.godebug)
		if got := AsyncPreemptOff(); got != c.off {
			t.Errorf("GODEBUG=%q: AsyncPreemptOff() = %v, want %v", c.godebug, got, c.off)
		}
	}
}
