package osthread

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestHaltsHere: on a machine with cpuidle, a window in which a CPU this
// process may use idled (its idle time in /proc/stat grew by 30 ms or
// more) counts its halts: present and above 0. A machine kept busy by
// others may not idle in one short window; the test gives it up to 100.
func TestHaltsHere(t *testing.T) {
	if _, err := os.Stat(CPURoot + "/cpu0/cpuidle"); err != nil {
		t.Skipf("no cpuidle here: %v", err)
	}
	cpus, err := AllowedCPUs()
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		i0 := idleTicks(t, cpus)
		m := NewHaltMeter().Start()
		time.Sleep(50 * time.Millisecond)
		h := m.Stop()
		i1 := idleTicks(t, cpus)
		if h.Missing != "" || h.Entries == nil {
			t.Fatalf("halts over a 50ms sleep: missing (%q), want a count", h.Missing)
		}
		if !slices.Equal(h.CPUs, cpus) {
			t.Fatalf("counted CPUs %v, want the affinity mask's %v", h.CPUs, cpus)
		}
		if i1-i0 < 3 { // /proc/stat counts in 10 ms ticks
			continue
		}
		if *h.Entries == 0 {
			t.Errorf("CPUs %v idled %d0 ms in a 50ms window, yet no idle-state entry counted", cpus, i1-i0)
		}
		return
	}
	t.Skip("the CPUs never idled in 100 windows of 50ms: a machine kept busy by others")
}

// idleTicks is the idle time of cpus in /proc/stat, in USER_HZ ticks.
func idleTicks(t *testing.T, cpus []int) uint64 {
	t.Helper()
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		t.Fatal(err)
	}
	var sum uint64
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 || !strings.HasPrefix(f[0], "cpu") || f[0] == "cpu" {
			continue
		}
		cpu, err := strconv.Atoi(strings.TrimPrefix(f[0], "cpu"))
		if err != nil || !slices.Contains(cpus, cpu) {
			continue
		}
		n, err := strconv.ParseUint(f[4], 10, 64)
		if err != nil {
			t.Fatalf("/proc/stat: %q: %v", line, err)
		}
		sum += n
	}
	return sum
}

// copyTree copies testdata/name into a directory of the test's own, so
// that the test can move its counts on.
func copyTree(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", name))); err != nil {
		t.Fatal(err)
	}
	return dir
}

// bump adds by to the usage file of cpu's state k under root.
func bump(t *testing.T, root string, cpu, k int, by uint64) {
	t.Helper()
	f := filepath.Join(root, "cpu"+strconv.Itoa(cpu), "cpuidle", "state"+strconv.Itoa(k), "usage")
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, []byte(strconv.FormatUint(n+by, 10)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestHaltsTrees: the count over fixture trees is the sum of what every
// counted CPU's states other than POLL gained; a tree without cpuidle, or
// with POLL alone, or a count that cannot be read at the end, leaves it
// missing, never 0.
func TestHaltsTrees(t *testing.T) {
	type step struct {
		cpu, state int
		by         uint64
	}
	cases := []struct {
		name  string
		tree  string
		cpus  []int
		steps []step
		want  uint64 // when present
		// missing is a part of the reason, "" when the count is present.
		missing string
	}{
		{"haltpoll", "haltpoll", []int{0, 1}, []step{{0, 0, 7}, {0, 1, 100}, {1, 1, 23}}, 123, ""},
		{"haltpoll, nothing idle", "haltpoll", []int{0, 1}, nil, 0, ""},
		{"intel_idle, every C-state", "intel_idle", []int{0, 1}, []step{{0, 0, 1000}, {0, 1, 1}, {0, 2, 20}, {0, 3, 300}, {1, 0, 5}, {1, 3, 4000}}, 4321, ""},
		{"intel_idle, CPU 1 alone", "intel_idle", []int{1}, []step{{0, 1, 1}, {0, 2, 20}, {1, 2, 50}, {1, 3, 4000}}, 4050, ""},
		{"no cpuidle", "none", []int{0}, nil, 0, "no cpuidle states for CPU 0"},
		{"a CPU without it", "haltpoll", []int{0, 2}, nil, 0, "no cpuidle states for CPU 2"},
		{"POLL alone", "pollonly", []int{0}, []step{{0, 0, 9}}, 0, "CPU 0 has no idle state but POLL"},
		{"no CPU", "haltpoll", nil, nil, 0, "no CPU to count"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := copyTree(t, c.tree)
			m := newHaltMeter(root, c.cpus).Start()
			for _, s := range c.steps {
				bump(t, root, s.cpu, s.state, s.by)
			}
			h := m.Stop()
			switch {
			case c.missing != "":
				if h.Entries != nil || !strings.Contains(h.Missing, c.missing) {
					t.Errorf("entries %v, missing %q: want no count, missing saying %q", h.Entries, h.Missing, c.missing)
				}
			case h.Entries == nil:
				t.Errorf("missing (%q), want %d entries", h.Missing, c.want)
			case *h.Entries != c.want:
				t.Errorf("%d entries, want %d (POLL left out)", *h.Entries, c.want)
			}
		})
	}
}

// TestHaltsUnreadableEnd: a usage file that cannot be read when the window
// closes leaves the count missing.
func TestHaltsUnreadableEnd(t *testing.T) {
	root := copyTree(t, "haltpoll")
	m := newHaltMeter(root, []int{0, 1}).Start()
	if err := os.Remove(filepath.Join(root, "cpu1", "cpuidle", "state1", "usage")); err != nil {
		t.Fatal(err)
	}
	if h := m.Stop(); h.Entries != nil || !strings.Contains(h.Missing, "cpu1/cpuidle/state1/usage") {
		t.Errorf("entries %v, missing %q: want no count, naming the file", h.Entries, h.Missing)
	}
}
