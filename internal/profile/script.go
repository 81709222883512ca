package profile

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	pprof "github.com/google/pprof/profile"
)

// ScriptArgs are the arguments of `perf script` whose output Parse reads:
// the mmap events place user addresses in their binaries, and the fields are
// the ones each sample's header and frames must carry.
var ScriptArgs = []string{"--show-mmap-events", "-F", "comm,pid,tid,time,period,event,ip,sym,dso"}

// KernelMapping is the file name of the mapping that holds the kernel's
// frames, the name perf gives the kernel's text. Frames of kernel modules
// come under mappings of their own, named as perf names them ("[kvm]").
const KernelMapping = "[kernel.kallsyms]"

// OtherRole labels threads and processes that Options does not name.
const OtherRole = "other"

// Options say how Parse reads perf's text and labels samples.
type Options struct {
	// Executable is the file of the recorded program, as perf's mmap
	// events name it: the profile's first mapping, which pprof takes for
	// the main binary and names the profile and its flame graph after.
	// When empty, it is the first program file perf announced an mmap of
	// (perf announces a running process's mappings from the lowest, where
	// its executable lies, and exec maps the executable first).
	// Recorder.Profile sets it.
	Executable string
	// RunTimeAddresses says that perf script printed user frames at their
	// run-time addresses, as perf does from version 6.4; older perf prints
	// them as offsets in their files. Recorder.Profile sets it.
	RunTimeAddresses bool
	// Roles names threads by tid ("reader", "writer"). When it is not empty,
	// every sample gets a "role" label: its thread's name, or OtherRole.
	Roles map[int]string
	// Processes names processes by pid. When it is not empty, every sample
	// gets a "process" label: its process's name, or OtherRole.
	Processes map[int]string
}

var (
	// "pb 19163/19166  1348.642877: <rest>"; comm is padded and may hold spaces.
	headerRE = regexp.MustCompile(`^(.*?)\s+(-?\d+)/(-?\d+)\s+(\d+)\.(\d+):\s+(.*)$`)
	// "250000 cpu-clock: [frame]"
	sampleRE = regexp.MustCompile(`^(\d+)\s+(\S+):(?:\s+(.*))?$`)
	// "ffffffff813a4413 finish_task_switch.isra.0 ([kernel.kallsyms])"
	frameRE  = regexp.MustCompile(`^([0-9a-f]+)\s+(.*)$`)
	symoffRE = regexp.MustCompile(`\+0x[0-9a-f]+$`)
)

// Parse reads `perf script` output (see ScriptArgs) of a recording made with
// call graphs (`perf record -g`) and converts it into a valid profile with
// two sample values: samples (count) and the sum of their periods, in the
// event's unit (nanoseconds for cpu-clock and task-clock, else a count).
// All samples must come from one event. The profile's Period is the period
// every sample carried (a cpu-clock recording samples at one fixed period);
// if they differ, as they may for an event sampled at a frequency, it is
// their mean, and a comment gives their range. Its first mapping is the
// Executable's.
func Parse(r io.Reader, opt Options) (*pprof.Profile, error) {
	p := &parser{opt: opt, b: newBuilder(), maps: map[int][]*mmap{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		p.line++
		if err := p.parseLine(sc.Text()); err != nil {
			return nil, fmt.Errorf("perf script line %d: %w", p.line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read perf script output: %w", err)
	}
	p.flush()
	prof := p.b.profile(p.mainMapping(), p.event, p.periods.period(), p.last-p.first)
	if p.periods.min != p.periods.max {
		prof.Comments = append(prof.Comments, fmt.Sprintf("sample periods from %d to %d %s; Period is their mean", p.periods.min, p.periods.max, prof.PeriodType.Unit))
	}
	if err := prof.CheckValid(); err != nil {
		return nil, fmt.Errorf("converted profile is not valid: %w", err)
	}
	return prof, nil
}

// parser holds the state of one Parse.
type parser struct {
	opt       Options
	b         *builder
	maps      map[int][]*mmap // by pid; -1 holds the kernel's and its modules'
	kernel    *mmap           // the kernel's text, once announced
	firstFile string          // the first program file announced
	line      int

	cur     *pending // the sample whose frames are being read
	event   string
	periods periods
	first   int64 // nanoseconds, perf's clock
	last    int64
}

// periods sums up the samples' periods; n counts the samples.
type periods struct {
	n, sum, min, max int64
}

func (s *periods) add(period int64) {
	if s.n == 0 || period < s.min {
		s.min = period
	}
	s.max = max(s.max, period)
	s.sum += period
	s.n++
}

// period is the period every sample carried, or their mean, rounded.
func (s *periods) period() int64 {
	if s.n == 0 || s.min == s.max {
		return s.min
	}
	return (s.sum + s.n/2) / s.n
}

// pending is a sample header and the frames read so far, leaf first.
type pending struct {
	comm     string
	pid, tid int
	period   int64
	locs     []*pprof.Location
}

func (p *parser) parseLine(line string) error {
	if strings.TrimSpace(line) == "" {
		p.flush()
		return nil
	}
	// Frames are indented with a tab; some perf versions right-align the
	// comm of a header with spaces.
	var h []string
	if line[0] != '\t' {
		h = headerRE.FindStringSubmatch(strings.TrimLeft(line, " "))
	}
	if h == nil {
		if line[0] != ' ' && line[0] != '\t' {
			return fmt.Errorf("not a sample or mmap event: %q", line)
		}
		if p.cur == nil {
			return fmt.Errorf("frame outside a sample: %q", line)
		}
		return p.frame(strings.TrimSpace(line))
	}
	p.flush()
	rest := h[6]
	if strings.HasPrefix(rest, "PERF_RECORD_") {
		if strings.HasPrefix(rest, "PERF_RECORD_MMAP") {
			return p.mmap(rest)
		}
		return nil // comm, fork, exit...: nothing a profile needs
	}
	s := sampleRE.FindStringSubmatch(rest)
	if s == nil {
		return fmt.Errorf("sample without period and event (run perf script %s): %q", strings.Join(ScriptArgs, " "), line)
	}
	pid, _ := strconv.Atoi(h[2])
	tid, _ := strconv.Atoi(h[3])
	period, err := strconv.ParseInt(s[1], 10, 64)
	if err != nil {
		return fmt.Errorf("period %q: %w", s[1], err)
	}
	if err := p.sampleEvent(s[2]); err != nil {
		return err
	}
	t, err := nanos(h[4], h[5])
	if err != nil {
		return err
	}
	if p.periods.n == 0 || t < p.first {
		p.first = t
	}
	p.last = max(p.last, t)
	p.periods.add(period)
	p.cur = &pending{comm: strings.TrimSpace(h[1]), pid: pid, tid: tid, period: period}
	if s[3] != "" {
		// Recorded without -g: the one frame shares the header's line.
		return p.frame(s[3])
	}
	return nil
}

func (p *parser) sampleEvent(event string) error {
	if p.event == "" {
		p.event = event
		return nil
	}
	if event != p.event {
		return fmt.Errorf("sample of event %s after samples of %s: record one event only", event, p.event)
	}
	return nil
}

// nanos turns perf's "seconds.fraction" into nanoseconds without rounding.
func nanos(sec, frac string) (int64, error) {
	s, err := strconv.ParseInt(sec, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("time %s.%s: %w", sec, frac, err)
	}
	if len(frac) > 9 {
		frac = frac[:9]
	}
	f, err := strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("time %s.%s: %w", sec, frac, err)
	}
	return s*1e9 + f, nil
}

// frame adds one "address symbol (dso)" line to the current sample.
func (p *parser) frame(text string) error {
	f := frameRE.FindStringSubmatch(text)
	if f == nil {
		return fmt.Errorf("frame not understood: %q", text)
	}
	printed, err := strconv.ParseUint(f[1], 16, 64)
	if err != nil {
		return fmt.Errorf("frame address %q: %w", f[1], err)
	}
	sym, dso := splitDSO(f[2])
	sym = symoffRE.ReplaceAllString(sym, "")
	m, addr := p.place(p.cur.pid, dso, printed)
	p.cur.locs = append(p.cur.locs, p.b.location(m, addr, sym))
	return nil
}

// splitDSO splits "symbol (dso)" at the parenthesis that closes the line;
// symbols and file names may hold parentheses of their own.
func splitDSO(s string) (sym, dso string) {
	if !strings.HasSuffix(s, ")") {
		return s, unknown
	}
	depth := 0
	for i := len(s) - 1; i >= 0; i-- {
		switch s[i] {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 && i > 0 && s[i-1] == ' ' {
				return s[:i-1], s[i+1 : len(s)-1]
			}
		}
	}
	return s, unknown
}

const unknown = "[unknown]"

// flush ends the current sample, if any.
func (p *parser) flush() {
	c := p.cur
	if c == nil {
		return
	}
	p.cur = nil
	labels := map[string][]string{"comm": {c.comm}}
	if len(p.opt.Roles) > 0 {
		labels["role"] = []string{nameOr(p.opt.Roles, c.tid)}
	}
	if len(p.opt.Processes) > 0 {
		labels["process"] = []string{nameOr(p.opt.Processes, c.pid)}
	}
	p.b.sample(c.locs, c.period, labels, c.pid, c.tid)
}

func nameOr(names map[int]string, id int) string {
	if n, ok := names[id]; ok {
		return n
	}
	return OtherRole
}
