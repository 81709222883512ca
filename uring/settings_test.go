package uring

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/pipebench/pipebenchtest"
)

// TestVariantNames: a base name with -no suffixes, in order and each once,
// turns those settings off and keeps the others; anything else that
// starts like one is refused in one line naming what is allowed; other
// names are not io_uring variants.
func TestVariantNames(t *testing.T) {
	for _, c := range []struct {
		name string
		want Settings // the settings on, if accepted
		err  string   // part of the refusal, if refused
		not  bool     // no variant name at all
	}{
		{name: "uring-rw-nofixed", want: Defer | RegRing | TaskrunFlag | Batch},
		{name: "uring-rw-nofixed-nodefer-noregring-notaskrunflag", want: Batch},
		{name: "uring-rw-oneshot-nobatch", want: Fixed | Defer | RegRing | TaskrunFlag},
		{name: "uring-rw-sqpoll-nofixed-noregring", want: 0},
		{name: "uring-nofixed", want: TaskrunFlag},
		{name: "uring-oneshot-nofixed-notaskrunflag", want: 0},
		{name: "uring-rw-nodefer-nofixed", err: "out of order"},
		{name: "uring-rw-nofixed-nofixed", err: "twice"},
		{name: "uring-rw-nospeed", err: `unknown setting "speed"`},
		{name: "uring-rw-sqpoll-nodefer", err: "refuses IORING_SETUP_DEFER_TASKRUN with IORING_SETUP_SQPOLL"},
		{name: "uring-nobatch", err: "writes nothing through the ring"},
		{name: "uring-nodefer", err: "only one task"},
		{name: "uring-rw", not: true},
		{name: "uring-rw-fixed", not: true},
		{name: "epoll-nofixed", not: true},
	} {
		f, ok, err := Variant(c.name)
		switch {
		case c.not:
			if ok {
				t.Errorf("%s: taken for a variant (%v, %v)", c.name, f, err)
			}
		case c.err != "":
			if !ok || err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s: got %v, %v; want one line saying %q", c.name, ok, err, c.err)
			}
		case err != nil || !ok:
			t.Errorf("%s: %v, %v", c.name, ok, err)
		default:
			if f.Name != c.name || !strings.Contains(f.Summary, "settings "+c.want.String()) {
				t.Errorf("%s: factory %q, summary %q; want settings %s", c.name, f.Name, f.Summary, c.want)
			}
			if again, _, _ := Variant(c.name); again != f {
				t.Errorf("%s: a second lookup gave another factory", c.name)
			}
		}
	}
}

// ablation is every variant with one setting off, and each base with all
// of its settings off.
func ablation() []*pipebench.Factory {
	var fs []*pipebench.Factory
	for _, b := range bases() {
		all := ""
		for _, x := range settingList {
			if b.applies&x.bit == 0 {
				continue
			}
			all += "-no" + x.word
			f, _, err := Variant(b.f.Name + "-no" + x.word)
			if err != nil {
				panic(err)
			}
			fs = append(fs, f)
		}
		if strings.Count(all, "-no") > 1 {
			f, _, err := Variant(b.f.Name + all)
			if err != nil {
				panic(err)
			}
			fs = append(fs, f)
		}
	}
	return fs
}

// TestVariantsConform: the conformance suite, whose harness runs account
// for every token in every writer mode, passes with each setting off and
// with all of them off (TestUring runs it with all on).
func TestVariantsConform(t *testing.T) {
	if testing.Short() {
		t.Skip("the conformance suite for every variant takes a while")
	}
	for _, f := range ablation() {
		t.Run(f.Name, func(t *testing.T) { conform(t, *f) })
	}
}

// TestVariantsCount: in a self-mode run every variant conserves tokens;
// the batching ones make fewer io_uring_enter calls than tokens, the one
// without batching at least one per write.
func TestVariantsCount(t *testing.T) {
	for _, name := range []string{"uring-rw", "uring-rw-nofixed-nodefer-noregring-notaskrunflag", "uring-rw-nobatch", "uring-rw-oneshot-nobatch"} {
		t.Run(name, func(t *testing.T) {
			f, _, err := Variant(name)
			if name == "uring-rw" {
				f, err = &RWFactory, nil
			}
			if err != nil {
				t.Fatal(err)
			}
			res := runRW(t, *f, 16)
			tot := res.Totals
			if tk := res.Tokens; tk.Lost != 0 || tk.Received == 0 {
				t.Fatalf("tokens %+v", tk)
			}
			batch := !strings.HasSuffix(name, "-nobatch")
			if batch && tot.WaitSyscalls >= tot.Tokens {
				t.Errorf("%d io_uring_enter calls for %d tokens: want fewer calls than tokens", tot.WaitSyscalls, tot.Tokens)
			}
			if !batch && tot.WaitSyscalls < tot.Writes {
				t.Errorf("%d io_uring_enter calls for %d writes: want one per write at least", tot.WaitSyscalls, tot.Writes)
			}
		})
	}
}

// TestRefuseSettings: where the kernel lacks a setting (played here by a
// setup or a register call that answers EINVAL), the factory's Check
// refuses before any work, in one line naming the backend, the feature,
// the release that has it and the variant without it, as a ConfigError
// naming Backend (which the command turns into -b and exit status 2);
// Open refuses likewise with an errors.ErrUnsupported, which tests skip on.
func TestRefuseSettings(t *testing.T) {
	realSetup, realRegister := setupCall, registerCall
	defer func() { setupCall, registerCall = realSetup, realRegister }()
	for _, c := range []struct {
		name     string
		setup    uint32  // setup flag answered with EINVAL
		register uintptr // register opcode answered with EINVAL
		want     []string
	}{
		{"uring-rw", setupDeferTaskrun, 0, []string{"IORING_SETUP_DEFER_TASKRUN", "Linux 6.1", "-b uring-rw-nodefer"}},
		{"uring-rw", setupTaskrunFlag, 0, []string{"IORING_SETUP_TASKRUN_FLAG", "Linux 5.19", "-b uring-rw-notaskrunflag"}},
		{"uring-rw", 0, registerFiles, []string{"IORING_REGISTER_FILES", "Linux 5.6", "-b uring-rw-nofixed"}},
		{"uring-rw", 0, registerRingFDs, []string{"IORING_REGISTER_RING_FDS", "Linux 5.18", "-b uring-rw-noregring"}},
		{"uring-rw-nodefer", setupTaskrunFlag, 0, []string{"-b uring-rw-nodefer-notaskrunflag"}},
		{"uring", setupTaskrunFlag, 0, []string{"-b uring-notaskrunflag"}},
		{"uring-rw-nobatch", setupDeferTaskrun, 0, []string{"-b uring-rw-nodefer-nobatch"}},
	} {
		setupCall = func(entries uint32, p *params) (int, unix.Errno) {
			if p.flags&c.setup != 0 {
				return -1, unix.EINVAL
			}
			return realSetup(entries, p)
		}
		registerCall = func(fd int, op uintptr, arg unsafe.Pointer, nr uintptr) unix.Errno {
			if op == c.register && c.register != 0 {
				return unix.EINVAL
			}
			return realRegister(fd, op, arg, nr)
		}
		f := lookup(t, c.name)
		probed.Clear()
		cerr := f.Check(&pipebench.Config{}, flags)
		var ce *pipebench.ConfigError
		if !errors.As(cerr, &ce) {
			t.Fatalf("%s: Check gave %v, want a ConfigError", c.name, cerr)
		}
		if fields := ce.Fields; len(fields) != 1 || fields[0] != "Backend" {
			t.Errorf("%s: the error names %v, want Backend alone", c.name, fields)
		}
		msg := cerr.Error()
		if strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "-b "+c.name+": ") {
			t.Errorf("%s: %q: want one line starting with the flag and the backend", c.name, msg)
		}
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %q does not say %q", c.name, msg, w)
			}
		}
		if c.setup != 0 {
			// Open, called without Check, refuses the same way.
			var be pipebench.Interest
			var err error
			if o := (pipebench.Options{Pipes: 4, MaxFD: 64}); f.IsLoop() {
				be, err = f.OpenLoop(o)
			} else {
				be, err = f.Open(o)
			}
			if !errors.Is(err, errors.ErrUnsupported) {
				if be != nil {
					be.Close()
				}
				t.Errorf("%s: Open gave %v, want an errors.ErrUnsupported", c.name, err)
			}
		}
	}
	probed.Clear()
}

// lookup is the factory of a base or variant name.
func lookup(t *testing.T, name string) *pipebench.Factory {
	t.Helper()
	for _, b := range bases() {
		if b.f.Name == name {
			return b.f
		}
	}
	f, ok, err := Variant(name)
	if !ok || err != nil {
		t.Fatalf("%s: %v, %v", name, ok, err)
	}
	return f
}

// TestKernelRefusesCombinations: the combinations the variants avoid are
// the kernel's refusals, as io_uring_setup(2) documents them:
// DEFER_TASKRUN without SINGLE_ISSUER, DEFER_TASKRUN or TASKRUN_FLAG with
// SQPOLL, TASKRUN_FLAG without COOP_TASKRUN or DEFER_TASKRUN.
func TestKernelRefusesCombinations(t *testing.T) {
	if r, err := newRing(8, 16, false, 0); err != nil {
		t.Skipf("no io_uring here: %v", err)
	} else {
		r.close()
	}
	for _, c := range []struct {
		name  string
		flags uint32
	}{
		{"DEFER_TASKRUN without SINGLE_ISSUER", setupDeferTaskrun},
		{"SQPOLL with DEFER_TASKRUN", setupSQPoll | setupSingleIssuer | setupDeferTaskrun},
		{"SQPOLL with TASKRUN_FLAG", setupSQPoll | setupTaskrunFlag},
		{"TASKRUN_FLAG alone", setupTaskrunFlag},
	} {
		p := params{flags: c.flags}
		fd, e := setup(8, &p)
		if e == 0 {
			unix.Close(fd)
		}
		if e != unix.EINVAL {
			t.Errorf("%s: io_uring_setup gave %v, want EINVAL", c.name, e)
		}
	}
	for _, flags := range []uint32{setupSingleIssuer | setupDeferTaskrun | setupTaskrunFlag, setupCoopTaskrun | setupTaskrunFlag, setupSQPoll | setupSingleIssuer} {
		p := params{flags: flags}
		fd, e := setup(8, &p)
		if e != 0 {
			t.Errorf("io_uring_setup flags %#x: %v, want a ring", flags, e)
			continue
		}
		unix.Close(fd)
	}
}

// TestDeferTaskrun: with Defer a read's completion waits for the issuer's
// io_uring_enter with GETEVENTS (the kernel flags it meanwhile, with
// TaskrunFlag), and no other thread may enter the ring (EEXIST), which is
// why the poll backends, whose Wait may run on any thread, do without it.
func TestDeferTaskrun(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r, err := newRing(8, 16, false, Defer|TaskrunFlag)
	pipebenchtest.SkipIfRefused(t, err)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	if err := r.enable(); err != nil {
		t.Fatal(err)
	}
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	var buf [8]byte
	s, err := r.slot()
	if err != nil {
		t.Fatal(err)
	}
	s.opcode, s.fd, s.off, s.addr, s.len, s.userData = opRead, int32(p[0]), ^uint64(0), uint64(uintptr(unsafe.Pointer(&buf[0]))), uint32(len(buf)), 7
	r.push()
	if _, e := r.enter(0, false, 0); e != 0 {
		t.Fatalf("submit: %v", e)
	}
	if _, err := unix.Write(p[1], []byte{1}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond)
	if r.cqReady() {
		t.Error("the read's completion was posted before io_uring_enter with GETEVENTS")
	}
	if !r.taskWork() {
		t.Error("TASKRUN_FLAG: the SQ ring does not flag the completion waiting as task work")
	}
	other := make(chan unix.Errno)
	go func() {
		runtime.LockOSThread() // a thread of its own, ended with the goroutine
		_, e := r.enter(0, true, 0)
		other <- e
	}()
	if e := <-other; e != unix.EEXIST {
		t.Errorf("io_uring_enter from another thread: %v, want EEXIST", e)
	}
	if _, e := r.enter(1, true, time.Second); e != 0 {
		t.Fatalf("wait: %v", e)
	}
	if !r.cqReady() {
		t.Fatal("no completion after io_uring_enter with GETEVENTS")
	}
	if c := r.cqes[*r.cqHead&r.cqMask]; c.userData != 7 || c.res != 1 {
		t.Errorf("completion %+v, want the read's (user data 7, 1 byte)", c)
	}
}

// TestRegisteredRing: io_uring_enter by the registered index works on the
// thread that registered it, and Run undoes the registration before it
// returns.
func TestRegisteredRing(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r, err := newRing(8, 16, false, 0)
	pipebenchtest.SkipIfRefused(t, err)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	if err := r.registerRing(); err != nil {
		t.Fatal(err)
	}
	if r.regIndex < 0 {
		t.Fatalf("registered index %d", r.regIndex)
	}
	s, err := r.slot()
	if err != nil {
		t.Fatal(err)
	}
	s.opcode, s.userData = 0, 9 // IORING_OP_NOP
	r.push()
	if _, e := r.enter(1, true, time.Second); e != 0 {
		t.Fatalf("io_uring_enter by registered index: %v", e)
	}
	if c := r.cqes[*r.cqHead&r.cqMask]; c.userData != 9 {
		t.Errorf("completion %+v, want the NOP's", c)
	}
	if err := r.unregisterRing(); err != nil || r.regIndex != -1 {
		t.Errorf("unregister: %v, index %d", err, r.regIndex)
	}
}
