package tokens

import (
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

// TestReadWrite holds Read and Write to what the kernel says, through
// whichever rawCall3 this architecture builds: the byte count of a call
// that worked, and the negated errno of one that failed, which Split turns
// into -1 and the errno.
func TestReadWrite(t *testing.T) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	r, w := int32(p[0]), int32(p[1])
	buf := make([]byte, 16)
	if n, e := Read(r, buf).Split(); n != -1 || e != unix.EAGAIN {
		t.Errorf("read of an empty pipe: %d, %v; want -1, EAGAIN", n, e)
	}
	if n, e := Write(w, []byte("token")).Split(); n != 5 || e != 0 {
		t.Errorf("write of 5 bytes: %d, %v; want 5, no error", n, e)
	}
	if n, e := Read(r, buf).Split(); n != 5 || e != 0 || string(buf[:n]) != "token" {
		t.Errorf("read: %d, %v, %q; want 5, no error, \"token\"", n, e, buf[:max(n, 0)])
	}
	if n, e := Write(r, buf[:1]).Split(); n != -1 || e != unix.EBADF {
		t.Errorf("write to a read end: %d, %v; want -1, EBADF", n, e)
	}
	if n, e := Read(-1, buf).Split(); n != -1 || e != unix.EBADF {
		t.Errorf("read of fd -1: %d, %v; want -1, EBADF", n, e)
	}
	if got := Read(r, buf); got != -Result(unix.EAGAIN) {
		t.Errorf("read of an empty pipe: result %d; want -EAGAIN (%d), as the kernel returns it", got, -int(unix.EAGAIN))
	}
}

// TestReadWriteInline: the hot loops reach read(2) and write(2) through no
// frame of ours, so Read and Write must stay small enough to inline.
func TestReadWriteInline(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the package with -gcflags=-m")
	}
	if !slices.Contains([]string{"amd64", "arm64", "riscv64", "loong64"}, runtime.GOARCH) {
		t.Skipf("on %s Read and Write go through the standard library (rawcall_other.go)", runtime.GOARCH)
	}
	out, err := exec.Command("go", "build", "-gcflags=-m", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build -gcflags=-m: %v\n%s", err, out)
	}
	for _, f := range []string{"Read", "Write", "Result.Split"} {
		if !regexp.MustCompile(`can inline (\(?)` + regexp.QuoteMeta(f) + `\b`).Match(out) {
			t.Errorf("%s cannot be inlined any more (go build -gcflags=-m):\n%s", f, out)
		}
	}
}
