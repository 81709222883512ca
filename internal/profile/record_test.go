package profile

import (
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	pprof "github.com/google/pprof/profile"
	"golang.org/x/sys/unix"
)

// TestRecord records this test process while one of its threads moves bytes
// through a pipe, and finds that thread's kernel frames in the profile.
func TestRecord(t *testing.T) {
	if err := Check(); err != nil {
		t.Skipf("perf cannot record here, so the recorder is untested: %v", err)
	}
	var p [2]int
	if err := unix.Pipe(p[:]); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	var stop atomic.Bool
	tids := make(chan int, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		tids <- unix.Gettid()
		b := []byte{1}
		for !stop.Load() {
			unix.Write(p[1], b)
			unix.Read(p[0], b)
		}
	}()
	tid := <-tids
	rec, err := Start([]int{os.Getpid()})
	if err != nil {
		stop.Store(true)
		t.Fatal(err)
	}
	defer rec.Close()
	// Long enough for samples in the loop's own user code, not only in the
	// kernel under its system calls, whose user stack perf may not unwind
	// past the assembly of the call: on two loaded cores 300 ms sometimes
	// caught none.
	time.Sleep(time.Second)
	err = rec.Stop()
	stop.Store(true)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	prof, err := rec.Profile(Options{Roles: map[int]string{tid: "pipe"}, Processes: map[int]string{os.Getpid(): "test"}})
	if err != nil {
		t.Fatal(err)
	}
	pipeSamples, kernelPipe := int64(0), false
	for _, s := range prof.Sample {
		if !s.HasLabel("role", "pipe") {
			continue
		}
		pipeSamples += s.Value[0]
		if !s.HasLabel("process", "test") {
			t.Errorf("sample of this process labelled %v", s.Label["process"])
		}
		for _, l := range s.Location {
			if l.Mapping != nil && l.Mapping.File == KernelMapping && strings.Contains(name(l), "pipe") {
				kernelPipe = true
			}
		}
	}
	if pipeSamples == 0 || !kernelPipe {
		t.Errorf("%d samples of the pipe thread, kernel pipe frame seen: %v", pipeSamples, kernelPipe)
	}
	if len(prof.Comments) == 0 || !strings.HasPrefix(prof.Comments[0], "perf record -g") {
		t.Errorf("comments %q: want the perf command", prof.Comments)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if got := prof.Mapping[0].File; got != exe {
		t.Errorf("first mapping %s: pprof would name the profile after it, want this test binary %s", got, exe)
	}
	checkPlacedInThisProcess(t, prof, exe, tid)
}

// checkPlacedInThisProcess checks that the frames placed in this test's
// binary are at run-time addresses of this process: each is in one of its
// functions, and the pipe thread's stacks pass through the goroutine that
// drives it. (go test strips its binaries, so perf names none of them.)
func checkPlacedInThisProcess(t *testing.T, prof *pprof.Profile, exe string, tid int) {
	t.Helper()
	const loop = "github.com/pipebench/pipebench/internal/profile.TestRecord.func"
	sawLoop := false
	for _, s := range prof.Sample {
		for _, l := range s.Location {
			if l.Mapping == nil || l.Mapping.File != exe {
				continue
			}
			fn := runtime.FuncForPC(uintptr(l.Address))
			if fn == nil {
				t.Errorf("frame placed at %#x: no function of this process there", l.Address)
				continue
			}
			sawLoop = sawLoop || (s.NumLabel["tid"][0] == int64(tid) && strings.HasPrefix(fn.Name(), loop))
		}
	}
	if !sawLoop {
		t.Errorf("no stack of the pipe thread passes through %s", loop)
	}
}

func TestStartWithoutPerf(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for name, err := range map[string]error{"Check": Check(), "Start": startErr()} {
		if err == nil || !strings.Contains(err.Error(), Package) {
			t.Errorf("%s without perf: %v, want an error naming %s", name, err, Package)
		}
	}
}

func startErr() error {
	r, err := Start([]int{os.Getpid()})
	if err == nil {
		r.Close()
	}
	return err
}
