package epoll

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/internal/waitcall"
	"github.com/pipebench/pipebench/pipebench"
)

// TestEpollSet: a set whose Wait is one epoll_pwait and nothing else
// (level-triggered and edge-triggered, not nested, not sleeping through
// the scheduler) hands its descriptor and event array to the reader, and
// an epoll_pwait made on them reports the tag a ready pipe was added
// with; a one-shot set (re-armed before each wait), a nested one (two
// calls) and one that sleeps through syscall.Syscall refuse.
func TestEpollSet(t *testing.T) {
	cases := []struct {
		name  string
		open  func(pipebench.Options) (pipebench.Mechanism, error)
		nest  int
		plain bool
	}{
		{"epoll", LevelFactory.Open, 0, true},
		{"epoll-et", EdgeFactory.Open, 0, true},
		{"epoll-oneshot", OneShotFactory.Open, 0, false},
		{"epoll+nest1", LevelFactory.Open, 1, false},
		{"epoll+syscallsleep", func(o pipebench.Options) (pipebench.Mechanism, error) {
			return OpenWaiter(o, Waiter{SyscallSleep: true})
		}, 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var p [2]int
			if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
				t.Fatal(err)
			}
			defer unix.Close(p[0])
			defer unix.Close(p[1])
			be, err := c.open(pipebench.Options{Pipes: 1, MaxFD: p[1], Nest: c.nest})
			if err != nil {
				t.Fatal(err)
			}
			defer be.Close()
			const tag = 7
			if err := be.Add(p[0], tag); err != nil {
				t.Fatal(err)
			}
			es, ok := be.(pipebench.EpollSet)
			if !ok {
				t.Fatalf("%T is not a pipebench.EpollSet", be)
			}
			epfd, events, ok := es.EpollSet()
			if ok != c.plain {
				t.Fatalf("EpollSet: ok %v, want %v", ok, c.plain)
			}
			if !ok {
				return
			}
			if len(events) == 0 {
				t.Fatal("EpollSet: an empty event array")
			}
			if _, err := unix.Write(p[1], []byte{1}); err != nil {
				t.Fatal(err)
			}
			n, e := waitcall.Split(waitcall.Raw6(unix.SYS_EPOLL_PWAIT, uintptr(epfd), uintptr(unsafe.Pointer(unsafe.SliceData(events))), uintptr(len(events)), 1000, 0, 0))
			if e != 0 || n != 1 || events[0].Fd != tag {
				t.Fatalf("epoll_pwait on EpollSet's set: %d events, error %v, first tag %d; want 1 event, tag %d", n, e, events[0].Fd, tag)
			}
		})
	}
}
