package pipebenchtest

import (
	"slices"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/pipebench"
)

// checkOwnWait: a backend that hands the harness's reader its set
// (pipebench.EpollSet, PollWait, SelectWait) hands the one its Wait waits
// on, kept current as pipes are added and removed: the call the reader
// makes on it, read with the set's own function, reports the written
// pipes by their tags, and not a pipe removed, though written. A backend that hands
// over no set is skipped: every call goes through Wait.
func checkOwnWait(t *testing.T, f pipebench.Factory) {
	x := newFixture(t, f, 3)
	call := ownCall(x.b)
	if call == nil {
		t.Skipf("%s hands the reader no set: every call goes through Wait", f.Name)
	}
	own := func() []int {
		t.Helper()
		n, err := call(x.buf)
		if err != nil {
			t.Fatalf("the reader's own call on the handed set: %v", err)
		}
		got := x.reported(x.buf, n)
		slices.Sort(got)
		return got
	}
	x.pipes[0].write(t)
	x.pipes[2].write(t)
	if got := own(); !slices.Equal(got, []int{0, 2}) {
		t.Fatalf("the reader's own call reported %s, want %s", x.describe(got), x.describe([]int{0, 2}))
	}
	// Read dry and written again (an edge-triggered set reports new data
	// only), pipe 0 removed in between: only pipe 2 is reported.
	x.pipes[0].drain(t)
	x.pipes[2].drain(t)
	x.remove(0)
	x.pipes[0].write(t)
	x.pipes[2].write(t)
	if got := own(); !slices.Equal(got, []int{2}) {
		t.Fatalf("after removing pipe 0 and writing both again, the reader's own call reported %s, want %s", x.describe(got), x.describe([]int{2}))
	}
}

// ownCall is the readiness call the harness's reader makes on the set b
// hands it, with the hang guard for a timeout, reading the tags into
// ready with the set's function; nil when b hands over none.
func ownCall(b pipebench.Mechanism) func(ready []int32) (int, error) {
	ts := unix.NsecToTimespec(int64(hangGuard))
	if es, ok := b.(pipebench.EpollSet); ok {
		if epfd, events, ok := es.EpollSet(); ok {
			return func(ready []int32) (int, error) {
				ev := events[:min(len(events), len(ready))]
				n, _, e := unix.Syscall6(unix.SYS_EPOLL_PWAIT, uintptr(epfd), uintptr(unsafe.Pointer(unsafe.SliceData(ev))), uintptr(len(ev)), uintptr(hangGuard.Milliseconds()), 0, 0)
				if e != 0 {
					return 0, e
				}
				return pipebench.EpollTags(ready, ev[:n]), nil
			}
		}
	}
	if pw, ok := b.(pipebench.PollWait); ok {
		if set, ok := pw.PollSet(); ok {
			return func(ready []int32) (int, error) {
				t := ts
				n, _, e := unix.Syscall6(unix.SYS_PPOLL, uintptr(unsafe.Pointer(unsafe.SliceData(set.Fds))), uintptr(len(set.Fds)), uintptr(unsafe.Pointer(&t)), 0, 0, 0)
				if e != 0 {
					return 0, e
				}
				return set.Ready(ready, int(n)), nil
			}
		}
	}
	if sw, ok := b.(pipebench.SelectWait); ok {
		if set, ok := sw.SelectSet(); ok {
			return func(ready []int32) (int, error) {
				t := ts
				n, _, e := unix.Syscall6(unix.SYS_PSELECT6, uintptr(set.Nfds), uintptr(unsafe.Pointer(set.Arm())), 0, 0, uintptr(unsafe.Pointer(&t)), 0)
				if e != 0 {
					return 0, e
				}
				return set.Ready(ready, int(n)), nil
			}
		}
	}
	return nil
}
