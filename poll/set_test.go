package poll

import (
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

// TestSetReady: the scan after a ppoll reports the tags of the entries
// with any revents (POLLIN; POLLHUP, end of file; POLLERR; POLLNVAL), in
// array order, across the array's whole length, and no more of them than
// ready has room for or than the count the call returned.
func TestSetReady(t *testing.T) {
	revents := map[int]int16{0: unix.POLLIN, 1: unix.POLLIN, 63: unix.POLLIN, 64: unix.POLLHUP,
		65: unix.POLLIN | unix.POLLHUP, 100: unix.POLLERR, 127: unix.POLLNVAL, 129: unix.POLLIN}
	s := set{}
	var want []int32
	for i := range 130 {
		s.fds = append(s.fds, unix.PollFd{Fd: int32(3 + i), Events: unix.POLLIN, Revents: revents[i]})
		s.tags = append(s.tags, int32(1000+i))
		if revents[i] != 0 {
			want = append(want, int32(1000+i))
		}
	}
	for _, room := range []int{0, 1, 3, len(want), 200} {
		for _, n := range []int{0, 1, 5, len(want)} {
			ready := make([]int32, room)
			if got := ready[:s.ready(ready, n)]; !slices.Equal(got, want[:min(room, n)]) {
				t.Errorf("ready(room %d, count %d) = %v, want %v", room, n, got, want[:min(room, n)])
			}
		}
	}
}
