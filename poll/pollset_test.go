package poll

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/internal/waitcall"
	"github.com/pipebench/pipebench/pipebench"
)

// TestPollSet: the backend hands the reader its set (pipebench.PollWait),
// the one its Wait passes to ppoll, kept current as pipes are added and
// removed: a ppoll made on it reports the ready pipe's tag, and none for
// a pipe removed from it.
func TestPollSet(t *testing.T) {
	var p, q [2]int
	for _, fds := range []*[2]int{&p, &q} {
		if err := unix.Pipe2(fds[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
			t.Fatal(err)
		}
		defer unix.Close(fds[0])
		defer unix.Close(fds[1])
	}
	be, err := open(pipebench.Options{Pipes: 2, MaxFD: max(p[1], q[1])})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	const tagP, tagQ = 7, 9
	if err := be.Add(p[0], tagP); err != nil {
		t.Fatal(err)
	}
	if err := be.Add(q[0], tagQ); err != nil {
		t.Fatal(err)
	}
	set, ok := be.(pipebench.PollWait).PollSet()
	if !ok || set == nil {
		t.Fatalf("PollSet: %v, ok %v; want the set", set, ok)
	}
	for _, fds := range []*[2]int{&p, &q} {
		if _, err := unix.Write(fds[1], []byte{1}); err != nil {
			t.Fatal(err)
		}
	}
	ppoll := func() []int32 {
		t.Helper()
		ts := unix.NsecToTimespec(1e9)
		n, e := waitcall.Split(waitcall.Raw6(unix.SYS_PPOLL, uintptr(unsafe.Pointer(unsafe.SliceData(set.Fds))), uintptr(len(set.Fds)), uintptr(unsafe.Pointer(&ts)), 0, 0, 0))
		if e != 0 {
			t.Fatalf("ppoll on PollSet's set: %v", e)
		}
		ready := make([]int32, 4)
		return ready[:set.Ready(ready, n)]
	}
	if got := ppoll(); len(got) != 2 || got[0] != tagP || got[1] != tagQ {
		t.Fatalf("ppoll on PollSet's set reported tags %v, want [%d %d]", got, tagP, tagQ)
	}
	if err := be.Remove(p[0], tagP); err != nil {
		t.Fatal(err)
	}
	if got := ppoll(); len(got) != 1 || got[0] != tagQ {
		t.Fatalf("after removing pipe %d, ppoll on PollSet's set reported tags %v, want [%d]", tagP, got, tagQ)
	}
}
