package fdselect

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/internal/waitcall"
	"github.com/pipebench/pipebench/pipebench"
)

// TestSelectSet: the backend hands the reader its set
// (pipebench.SelectWait), the one its Wait passes to pselect6, kept
// current as pipes are added and removed: a pselect6 made on it (armed
// afresh each time) reports the ready pipe's tag, and none for a pipe
// removed from it.
func TestSelectSet(t *testing.T) {
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
	set, ok := be.(pipebench.SelectWait).SelectSet()
	if !ok || set == nil {
		t.Fatalf("SelectSet: %v, ok %v; want the set", set, ok)
	}
	for _, fds := range []*[2]int{&p, &q} {
		if _, err := unix.Write(fds[1], []byte{1}); err != nil {
			t.Fatal(err)
		}
	}
	pselect := func() []int32 {
		t.Helper()
		ts := unix.NsecToTimespec(1e9)
		n, e := waitcall.Split(waitcall.Raw6(unix.SYS_PSELECT6, uintptr(set.Nfds), uintptr(unsafe.Pointer(set.Arm())), 0, 0, uintptr(unsafe.Pointer(&ts)), 0))
		if e != 0 {
			t.Fatalf("pselect6 on SelectSet's set: %v", e)
		}
		ready := make([]int32, 4)
		return ready[:set.Ready(ready, n)]
	}
	want := []int32{tagP, tagQ}
	if q[0] < p[0] {
		want = []int32{tagQ, tagP}
	}
	if got := pselect(); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("pselect6 on SelectSet's set reported tags %v, want %v (descriptor order)", got, want)
	}
	if err := be.Remove(p[0], tagP); err != nil {
		t.Fatal(err)
	}
	if got := pselect(); len(got) != 1 || got[0] != tagQ {
		t.Fatalf("after removing pipe %d, pselect6 on SelectSet's set reported tags %v, want [%d]", tagP, got, tagQ)
	}
}
