package tokens

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestReadWrite holds Read and Write to what the kernel says, through
// whichever rawCall3 this architecture builds: the byte count of a call
// that worked, and -1 with the errno of one that failed, decoded from the
// raw result.
func TestReadWrite(t *testing.T) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	r, w := int32(p[0]), int32(p[1])
	buf := make([]byte, 16)
	if n, e := Read(r, buf); n != -1 || e != unix.EAGAIN {
		t.Errorf("read of an empty pipe: %d, %v; want -1, EAGAIN", n, e)
	}
	if n, e := Write(w, []byte("token")); n != 5 || e != 0 {
		t.Errorf("write of 5 bytes: %d, %v; want 5, no error", n, e)
	}
	if n, e := Read(r, buf); n != 5 || e != 0 || string(buf[:n]) != "token" {
		t.Errorf("read: %d, %v, %q; want 5, no error, \"token\"", n, e, buf[:max(n, 0)])
	}
	if n, e := Write(r, buf[:1]); n != -1 || e != unix.EBADF {
		t.Errorf("write to a read end: %d, %v; want -1, EBADF", n, e)
	}
	if n, e := Read(-1, buf); n != -1 || e != unix.EBADF {
		t.Errorf("read of fd -1: %d, %v; want -1, EBADF", n, e)
	}
}
