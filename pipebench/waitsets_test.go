package pipebench_test

import (
	"fmt"
	"slices"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/pipebench"
)

// readySets is 130 real pipes, some of them ready: a byte in pipes 0, 1,
// 63, 64, 65, 127 and 129, and pipe 100's write end closed (end of file,
// which poll reports as POLLHUP and select as readable). Pipe i's tag is
// 1000+i. want is the tags in pipe order, which is array order for poll
// and descriptor order for select (read ends are opened in pipe order).
type readySets struct {
	rfds []int
	want []int32
}

func newReadySets(t *testing.T) readySets {
	t.Helper()
	const pipes = 130
	s := readySets{}
	for i := 0; i < pipes; i++ {
		var p [2]int
		if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
			t.Fatalf("pipe %d: %v", i, err)
		}
		s.rfds = append(s.rfds, p[0])
		t.Cleanup(func() { unix.Close(p[0]) })
		switch i {
		case 0, 1, 63, 64, 65, 127, 129:
			if _, err := unix.Write(p[1], []byte{1}); err != nil {
				t.Fatalf("write pipe %d: %v", i, err)
			}
			s.want = append(s.want, int32(1000+i))
		case 100:
			s.want = append(s.want, int32(1000+i))
			unix.Close(p[1])
			continue
		}
		t.Cleanup(func() { unix.Close(p[1]) })
	}
	return s
}

// readyCases are the calls of Ready each set reader must answer: all the
// ready tags with room for them, as many as there is room for, as many as
// the count the caller passes (fewer than are ready), and none for a
// count of zero or no room.
func readyCases(want []int32) []struct {
	room, n int
	want    []int32
} {
	return []struct {
		room, n int
		want    []int32
	}{
		{room: 200, n: len(want), want: want},
		{room: len(want), n: len(want), want: want},
		{room: 3, n: len(want), want: want[:3]},
		{room: 1, n: len(want), want: want[:1]},
		{room: 200, n: 5, want: want[:5]},
		{room: 200, n: 0, want: []int32{}},
		{room: 0, n: len(want), want: []int32{}},
	}
}

func TestPollSetReady(t *testing.T) {
	s := newReadySets(t)
	set := pipebench.PollSet{}
	for i, fd := range s.rfds {
		set.Fds = append(set.Fds, unix.PollFd{Fd: int32(fd), Events: unix.POLLIN})
		set.Tags = append(set.Tags, int32(1000+i))
	}
	n, err := unix.Ppoll(set.Fds, &unix.Timespec{}, nil)
	if err != nil {
		t.Fatalf("ppoll %d fds: %v", len(set.Fds), err)
	}
	if n != len(s.want) {
		t.Fatalf("ppoll found %d ready, want %d", n, len(s.want))
	}
	if hup := set.Fds[100].Revents; hup&unix.POLLHUP == 0 {
		t.Fatalf("pipe 100 revents %#x, want POLLHUP", hup)
	}
	for _, c := range readyCases(s.want) {
		t.Run(fmt.Sprintf("room%d_n%d", c.room, c.n), func(t *testing.T) {
			ready := make([]int32, c.room)
			k := set.Ready(ready, c.n)
			if got := ready[:k]; !slices.Equal(got, c.want) {
				t.Errorf("Ready(room %d, n %d) = %v, want %v", c.room, c.n, got, c.want)
			}
		})
	}
}

func TestSelectSetReady(t *testing.T) {
	s := newReadySets(t)
	nfds := slices.Max(s.rfds) + 1
	if nfds > unix.FD_SETSIZE {
		t.Skipf("descriptors reach %d, beyond select's %d", nfds, unix.FD_SETSIZE)
	}
	words := (nfds + 63) / 64
	set := pipebench.SelectSet{
		Interest: make([]uint64, words),
		Work:     make([]uint64, words),
		Tags:     make([]int32, nfds),
		Nfds:     nfds,
	}
	for i, fd := range s.rfds {
		set.Interest[fd/64] |= 1 << (fd % 64)
		set.Tags[fd] = int32(1000 + i)
	}
	if words < 3 {
		t.Fatalf("the set spans %d words; the test needs ready descriptors in several", words)
	}
	first := set.Arm()
	fdset := (*unix.FdSet)(nil)
	if first != nil {
		// unix.FdSet is the kernel's bitmap of 1024 bits; Work is as long as
		// Nfds needs, so Pselect gets a copy and hands the result back.
		fdset = &unix.FdSet{}
		for w, word := range set.Work {
			fdset.Bits[w] = int64(word)
		}
	}
	n, err := unix.Pselect(nfds, fdset, nil, nil, &unix.Timespec{}, nil)
	if err != nil {
		t.Fatalf("pselect6 nfds %d: %v", nfds, err)
	}
	if n != len(s.want) {
		t.Fatalf("pselect6 found %d ready, want %d", n, len(s.want))
	}
	for w := range set.Work {
		set.Work[w] = uint64(fdset.Bits[w])
	}
	for _, c := range readyCases(s.want) {
		t.Run(fmt.Sprintf("room%d_n%d", c.room, c.n), func(t *testing.T) {
			ready := make([]int32, c.room)
			k := set.Ready(ready, c.n)
			if got := ready[:k]; !slices.Equal(got, c.want) {
				t.Errorf("Ready(room %d, n %d) = %v, want %v", c.room, c.n, got, c.want)
			}
		})
	}
}
