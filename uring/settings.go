package uring

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/pipebench/pipebench/pipebench"
)

// Settings are the io_uring features a backend uses beyond the ones it
// cannot do without. Each is on by default where it applies, and a
// variant's name turns it off with a suffix (uring-rw-nofixed), so that
// its effect can be measured in one sweep and the name, recorded with
// every result, says what ran.
type Settings uint8

const (
	// Fixed registers the pipes' descriptors with the ring
	// (IORING_REGISTER_FILES) and names them by index (IOSQE_FIXED_FILE):
	// no descriptor lookup per request.
	Fixed Settings = 1 << iota
	// Defer sets the ring up IORING_SETUP_SINGLE_ISSUER |
	// IORING_SETUP_DEFER_TASKRUN: the reads' completion work runs when the
	// reader asks for completions (io_uring_enter with GETEVENTS), not at
	// whatever moment the thread next enters or leaves the kernel.
	Defer
	// RegRing registers the ring's own descriptor for the reader thread
	// (IORING_REGISTER_RING_FDS) and enters it by index
	// (IORING_ENTER_REGISTERED_RING): no descriptor lookup per
	// io_uring_enter.
	RegRing
	// TaskrunFlag sets the ring up IORING_SETUP_TASKRUN_FLAG: the kernel
	// flags the SQ ring while completions wait as task work, and the loop
	// reads the flag instead of looking at an empty CQ ring again.
	TaskrunFlag
	// Batch hands the writes queued while reaping a batch to the kernel
	// together, in the io_uring_enter that waits; without it each write is
	// submitted as it is queued, one io_uring_enter per write.
	Batch
)

// setting is one Settings bit: its suffix word, what it is, the kernel
// release that added it.
type setting struct {
	bit    Settings
	word   string
	what   string
	kernel string
}

// settingList is every setting, in the order variant names spell them.
var settingList = []setting{
	{Fixed, "fixed", "registered files (IORING_REGISTER_FILES, IOSQE_FIXED_FILE, IORING_OP_FILES_UPDATE)", "5.6"},
	{Defer, "defer", "IORING_SETUP_SINGLE_ISSUER with IORING_SETUP_DEFER_TASKRUN", "6.1"},
	{RegRing, "regring", "a registered ring descriptor (IORING_REGISTER_RING_FDS, IORING_ENTER_REGISTERED_RING)", "5.18"},
	{TaskrunFlag, "taskrunflag", "IORING_SETUP_TASKRUN_FLAG", "5.19"},
	{Batch, "batch", "writes handed to the kernel together, one io_uring_enter per batch", ""},
}

// String names the settings that are on, as a list of suffix words.
func (s Settings) String() string {
	var w []string
	for _, x := range settingList {
		if s&x.bit != 0 {
			w = append(w, x.word)
		}
	}
	if len(w) == 0 {
		return "none"
	}
	return strings.Join(w, ",")
}

// base is one backend that takes settings: its factory with every setting
// that applies on, and which settings apply.
type base struct {
	f       *pipebench.Factory
	applies Settings
	// why says, for a setting that does not apply, why not.
	why                 map[Settings]string
	poll, multi, sqpoll bool
	epoll               bool // uring-epoll
}

// The settings each kind of backend can use. The poll backends' Wait may
// be called from any thread (the Mechanism contract), and DEFER_TASKRUN and a
// registered ring descriptor both bind the ring to one thread; they write
// nothing through the ring. SQPOLL's kernel thread submits, which
// DEFER_TASKRUN and TASKRUN_FLAG exclude (io_uring_setup refuses them), and
// batches on its own.
const (
	rwSettings     = Fixed | Defer | RegRing | TaskrunFlag | Batch
	sqpollSettings = Fixed | RegRing
	pollSettings   = Fixed | TaskrunFlag
	// uring-epoll's ring is set up as the poll backends' are.
	epollSettings = TaskrunFlag
)

var (
	pollWhy = map[Settings]string{
		Defer:   "its Wait may run on any thread, and DEFER_TASKRUN lets only one task enter the ring",
		RegRing: "its Wait may run on any thread, and a registered ring descriptor belongs to the task that registered it",
		Batch:   "it writes nothing through the ring",
	}
	epollWhy = map[Settings]string{
		Fixed:   "its one request names one descriptor, the epoll set's, and epoll_ctl registers the pipes by descriptor",
		Defer:   pollWhy[Defer],
		RegRing: pollWhy[RegRing],
		Batch:   pollWhy[Batch],
	}
	sqpollWhy = map[Settings]string{
		Defer:       "io_uring_setup refuses IORING_SETUP_DEFER_TASKRUN with IORING_SETUP_SQPOLL",
		TaskrunFlag: "io_uring_setup refuses IORING_SETUP_TASKRUN_FLAG with IORING_SETUP_SQPOLL",
		Batch:       "its kernel thread takes the writes as they are queued",
	}
)

func bases() []base {
	return []base{
		{&Factory, pollSettings, pollWhy, true, true, false, false},
		{&OneShotFactory, pollSettings, pollWhy, true, false, false, false},
		{&EpollFactory, epollSettings, epollWhy, false, false, false, true},
		{&RWFactory, rwSettings, nil, false, true, false, false},
		{&RWOneShotFactory, rwSettings, nil, false, false, false, false},
		{&RWSQPollFactory, sqpollSettings, sqpollWhy, false, true, true, false},
	}
}

// variants caches the factories Variant has made, so that a name always
// gives the same *Factory.
var variants sync.Map // name -> *pipebench.Factory

// Variant returns the factory of a backend name made of a base name
// (uring, uring-oneshot, uring-epoll, uring-rw, uring-rw-oneshot,
// uring-rw-sqpoll) and suffixes -noSETTING, each once, in the order of
// VariantHelp, which turn settings off: uring-rw-nofixed-nodefer. ok is
// false when name is no such name; err says what is wrong with one that
// starts like it.
func Variant(name string) (f *pipebench.Factory, ok bool, err error) {
	if v, hit := variants.Load(name); hit {
		return v.(*pipebench.Factory), true, nil
	}
	// The longest base that name starts with: uring-rw-oneshot, not uring.
	var b *base
	all := bases()
	for i := range all {
		n := all[i].f.Name
		if strings.HasPrefix(name, n+"-no") && (b == nil || len(n) > len(b.f.Name)) {
			b = &all[i]
		}
	}
	if b == nil {
		return nil, false, nil
	}
	rest := strings.TrimPrefix(name, b.f.Name)
	on := b.applies
	next := 0
	for _, part := range strings.Split(rest, "-no")[1:] {
		k := -1
		for i, x := range settingList {
			if x.word == part {
				k = i
			}
		}
		switch {
		case k < 0:
			return nil, true, fmt.Errorf("backend %s: unknown setting %q after -no: want %s", name, part, VariantHelp())
		case k < next:
			return nil, true, fmt.Errorf("backend %s: -no%s twice or out of order: spell the settings in this order: %s", name, part, VariantHelp())
		case b.applies&settingList[k].bit == 0:
			return nil, true, fmt.Errorf("backend %s: %s does not use %s: %s", name, b.f.Name, part, b.why[settingList[k].bit])
		}
		on &^= settingList[k].bit
		next = k + 1
	}
	v, _ := variants.LoadOrStore(name, b.withSettings(name, on))
	return v.(*pipebench.Factory), true, nil
}

// VariantHelp lists the suffix words, in order.
func VariantHelp() string {
	w := make([]string, len(settingList))
	for i, x := range settingList {
		w[i] = "-no" + x.word
	}
	return strings.Join(w, " ")
}

// withSettings is the base's factory named name, opening backends with
// settings s and refusing, before any work, settings the kernel lacks.
func (b *base) withSettings(name string, s Settings) *pipebench.Factory {
	f := *b.f
	f.Name = name
	f.Summary = fmt.Sprintf("%s; settings %s", b.f.Summary, s)
	f.Check = checker(b.f.Name, b.applies, name, s, b.sqpoll)
	switch {
	case b.epoll: // whose Check probes its operation too
		f.Open, f.Check = epollOpener(s), epollChecker(name, s)
	case b.poll:
		f.Open = opener(b.multi, s)
	default:
		f.OpenLoop = rwOpener(b.multi, b.sqpoll, s)
	}
	return &f
}

// errKernel is a setting the kernel refuses.
type errKernel struct {
	s   setting
	err error
}

func (e *errKernel) Error() string {
	return fmt.Sprintf("%s needs Linux %s; this kernel refuses it (%v)", e.s.what, e.s.kernel, e.err)
}

func (e *errKernel) Unwrap() []error { return []error{e.err, errors.ErrUnsupported} }

// refusal is the one line with which a variant refuses a setting the
// kernel lacks, naming the variant without it.
func refusal(name string, k *errKernel, baseName string, applies, on Settings, n pipebench.Names) *pipebench.ConfigError {
	return n.Errorf("%s: %v: use %s", pipebench.Set("Backend", name), k, pipebench.Set("Backend", variantName(baseName, applies, on&^k.s.bit)))
}

// variantName is the name of base with settings on, of those that apply.
func variantName(baseName string, applies, on Settings) string {
	name := baseName
	for _, x := range settingList {
		if applies&x.bit != 0 && on&x.bit == 0 {
			name += "-no" + x.word
		}
	}
	return name
}

// probed caches the kernel's answers (cached): asked once per process.
var probed sync.Map // probeKey, or a kernelFact's key -> error

type probeKey struct {
	s      Settings
	sqpoll bool
}

// cached is probe's answer for key, asked once per process.
func cached(key any, probe func() error) error {
	v, hit := probed.Load(key)
	if !hit {
		v, _ = probed.LoadOrStore(key, probe())
	}
	err, _ := v.(error)
	return err
}

// kernelFact is what check says of a small ring of this kernel, asked
// once per process and key (cached): nil where io_uring is refused
// altogether, which Open explains.
func kernelFact(key string, check func(*ring) error) error {
	return cached(key, func() error { return probeRing(check) })
}

// probeRing runs check on a small ring.
func probeRing(check func(*ring) error) error {
	r, err := newRing(8, 16, false, 0)
	if err != nil {
		return nil
	}
	defer r.close()
	return check(r)
}

// checkSettings refuses, before any pipe is made, a setting this kernel
// lacks (Factory.Check). A kernel or a filter that refuses io_uring
// altogether is left for Open to explain.
func checkSettings(name string, s Settings, sqpoll bool, baseName string, applies Settings, n pipebench.Names) error {
	err := cached(probeKey{s, sqpoll}, func() error { return probeSettings(s, sqpoll) })
	var k *errKernel
	if errors.As(err, &k) {
		return refusal(name, k, baseName, applies, s, n)
	}
	return nil
}

// probeSettings sets up a small ring with the settings' flags and tries
// each registration they need, returning the first the kernel refuses as
// an *errKernel (EINVAL is how io_uring says it lacks a flag or an
// opcode), or nil.
func probeSettings(s Settings, sqpoll bool) error {
	// One thread throughout: with Defer only the thread that enabled the
	// ring may register on it, and a registered ring descriptor belongs to
	// the thread that registered it.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r, err := newRing(8, 16, sqpoll, s&^RegRing&^Fixed)
	if err != nil {
		var k *errKernel
		if errors.As(err, &k) {
			return k
		}
		return nil // io_uring refused altogether: Open says why
	}
	defer r.close()
	if s&Defer != 0 {
		if err := r.enable(); err != nil {
			return err
		}
	}
	if s&Fixed != 0 {
		files := []int32{-1, -1}
		if e := registerCall(r.fd, registerFiles, unsafe.Pointer(&files[0]), uintptr(len(files))); e != 0 {
			return &errKernel{settingOf(Fixed), fmt.Errorf("io_uring_register files: %w", e)}
		}
		if ok, err := r.supports(opFilesUpdate); err == nil && !ok {
			return &errKernel{settingOf(Fixed), fmt.Errorf("no IORING_OP_FILES_UPDATE: %w", unix.EINVAL)}
		}
	}
	if s&RegRing != 0 {
		if err := r.registerRing(); err != nil {
			return err
		}
		r.unregisterRing()
	}
	return nil
}

// settingOf is the entry of settingList for bit.
func settingOf(bit Settings) setting {
	for _, x := range settingList {
		if x.bit == bit {
			return x
		}
	}
	panic(fmt.Sprintf("uring: no setting %d", bit))
}
