package epoll

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/pipebench"
)

// TestShare has two threads wait at once on one instance, the original and
// a share, for every variant, nested and not: every byte written is read
// exactly once, by one of them; each counts its own epoll_pwait calls;
// closing the share leaves the instance working, and closing the original
// releases every descriptor.
func TestShare(t *testing.T) {
	for _, nest := range []int{0, 2} {
		for _, f := range Factories {
			t.Run(fmt.Sprintf("%s/nest%d", f.Name, nest), func(t *testing.T) { testShare(t, f, nest) })
		}
	}
}

func testShare(t *testing.T, f pipebench.Factory, nest int) {
	const pipes, rounds = 8, 400
	before := openFDs(t)
	orig, err := f.Open(pipebench.Options{Pipes: pipes, MaxFD: 1 << 16, Nest: nest})
	if err != nil {
		t.Fatal(err)
	}
	sb, err := orig.(pipebench.Sharer).Share()
	if err != nil {
		t.Fatal(err)
	}
	var rfd, wfd [pipes]int
	for i := range pipes {
		var p [2]int
		if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
			t.Fatal(err)
		}
		rfd[i], wfd[i] = p[0], p[1]
		if err := orig.Add(p[0], int32(i)); err != nil {
			t.Fatal(err)
		}
	}
	defer func() {
		for i := range pipes {
			unix.Close(rfd[i])
			unix.Close(wfd[i])
		}
	}()
	var (
		mu   sync.Mutex
		got  [pipes]int
		stop = make(chan struct{})
		wg   sync.WaitGroup
		reps [2]int
	)
	for w, be := range []pipebench.Mechanism{orig, sb} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			ready := make([]int32, pipes)
			buf := make([]byte, 64)
			for {
				select {
				case <-stop:
					return
				default:
				}
				n, err := be.Wait(ready, 20*time.Millisecond)
				if err != nil {
					t.Error(err)
					return
				}
				for _, tag := range ready[:n] {
					m, err := unix.Read(rfd[tag], buf)
					if err == unix.EAGAIN {
						continue // handed to both waiters; the other read it
					}
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					got[tag] += m
					reps[w]++
					mu.Unlock()
				}
			}
		}()
	}
	for r := range rounds {
		if _, err := unix.Write(wfd[r%pipes], []byte{1}); err != nil {
			t.Fatal(err)
		}
		if r%16 == 0 {
			time.Sleep(time.Millisecond)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		sum := 0
		for _, n := range got {
			sum += n
		}
		mu.Unlock()
		if sum == rounds || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	for i, n := range got {
		if n != rounds/pipes {
			t.Errorf("pipe %d: %d bytes read, want %d", i, n, rounds/pipes)
		}
	}
	if reps[0] == 0 || reps[1] == 0 {
		t.Errorf("reads by the original %d, by the share %d: want both waiters handed descriptors", reps[0], reps[1])
	}
	if orig.WaitSyscalls() == 0 || sb.WaitSyscalls() == 0 {
		t.Errorf("epoll_pwait calls: original %d, share %d; want each waiter to count its own", orig.WaitSyscalls(), sb.WaitSyscalls())
	}
	t.Logf("reads by the original %d, by the share %d; epoll_pwait %d and %d", reps[0], reps[1], orig.WaitSyscalls(), sb.WaitSyscalls())

	if err := sb.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := unix.Write(wfd[0], []byte{1}); err != nil {
		t.Fatal(err)
	}
	ready := make([]int32, pipes)
	if n, err := orig.Wait(ready, time.Second); n != 1 || err != nil || ready[0] != 0 {
		t.Errorf("after the share's Close the original reports %d (%v), %v; want pipe 0", n, ready[:n], err)
	}
	if err := orig.Close(); err != nil {
		t.Fatal(err)
	}
	if got := openFDs(t) - before; got != 2*pipes {
		t.Errorf("after Close, %d descriptors open besides the pipes' %d", got-2*pipes, 2*pipes)
	}
}
