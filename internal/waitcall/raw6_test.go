package waitcall

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestRaw6 holds Raw6 and Split to what the kernel says: a count for a call
// that worked, the negated errno for one that failed, and every one of
// the six arguments delivered (mmap takes six: a page of a file at an
// offset shows they all arrived).
func TestRaw6(t *testing.T) {
	if n, e := Split(Raw6(unix.SYS_GETPID, 0, 0, 0, 0, 0, 0)); n != os.Getpid() || e != 0 {
		t.Errorf("getpid: %d, %v; want %d, no error", n, e, os.Getpid())
	}
	buf := make([]byte, 8)
	if r := Raw6(unix.SYS_READ, ^uintptr(0), uintptr(unsafe.Pointer(&buf[0])), 8, 0, 0, 0); int(r) != -int(unix.EBADF) {
		t.Errorf("read of fd -1: result %d; want -EBADF (%d), as the kernel returns it", int(r), -int(unix.EBADF))
	}
	eintr := -int(unix.EINTR)
	if n, e := Split(uintptr(eintr)); n != 0 || e != unix.EINTR {
		t.Errorf("Split(-EINTR) = %d, %v; want 0, EINTR", n, e)
	}

	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	if _, err := unix.Write(p[1], []byte("token")); err != nil {
		t.Fatal(err)
	}
	if n, e := Split(Raw6(unix.SYS_READ, uintptr(p[0]), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), 0, 0, 0)); n != 5 || e != 0 || string(buf[:n]) != "token" {
		t.Errorf("read of a pipe: %d, %v, %q; want 5, no error, \"token\"", n, e, buf[:n])
	}

	page := os.Getpagesize()
	f := filepath.Join(t.TempDir(), "pages")
	content := append(bytes.Repeat([]byte{'A'}, page), bytes.Repeat([]byte{'B'}, page)...)
	if err := os.WriteFile(f, content, 0o600); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(f, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	addr, e := Split(Raw6(unix.SYS_MMAP, 0, uintptr(page), unix.PROT_READ, unix.MAP_PRIVATE, uintptr(fd), uintptr(page)))
	if e != 0 {
		t.Fatalf("mmap of the second page: %v", e)
	}
	at := uintptr(addr) // memory outside Go's heap: the mapping's address
	mapped := unsafe.Slice((*byte)(*(*unsafe.Pointer)(unsafe.Pointer(&at))), page)
	if !bytes.Equal(mapped, content[page:]) {
		t.Errorf("mmap at offset %d mapped %q..., want the second page (B)", page, mapped[:8])
	}
	if _, e := Split(Raw6(unix.SYS_MUNMAP, uintptr(addr), uintptr(page), 0, 0, 0, 0)); e != 0 {
		t.Errorf("munmap: %v", e)
	}
}

// TestSplitInline: a Wait's path from its call to the kernel and back is
// Raw6 alone, so Split must stay small enough to inline.
func TestSplitInline(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the package with -gcflags=-m")
	}
	out, err := exec.Command("go", "build", "-gcflags=-m", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build -gcflags=-m: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("can inline Split")) {
		t.Errorf("Split cannot be inlined any more (go build -gcflags=-m):\n%s", out)
	}
}
