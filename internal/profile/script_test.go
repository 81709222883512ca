package profile

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	pprof "github.com/google/pprof/profile"
)

// The fixture's threads and processes (testdata/README.md).
const (
	fixture      = "testdata/pipebench-process.perf-script.txt"
	readerPID    = 23751
	readerTID    = 23757
	writerPID    = 23760
	writerTID    = 23760
	kernelStart  = uint64(0xffffffff81000000)
	binaryStart  = 0x400000
	writerVDSO   = 0x7fb646bc8000
	samplePeriod = 250000
)

var fixtureOptions = Options{
	Executable: "/tmp/kp/pb",
	Roles:      map[int]string{readerTID: "reader", writerTID: "writer"},
	Processes:  map[int]string{readerPID: "main", writerPID: "writer"},
}

func parseFixture(t *testing.T) (*pprof.Profile, string) {
	t.Helper()
	text, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse(bytes.NewReader(text), fixtureOptions)
	if err != nil {
		t.Fatal(err)
	}
	return p, string(text)
}

func TestParseFixture(t *testing.T) {
	p, text := parseFixture(t)
	if err := p.CheckValid(); err != nil {
		t.Fatal(err)
	}
	wantSamples := int64(strings.Count(text, " cpu-clock:"))
	var count, nanos int64
	for _, s := range p.Sample {
		count += s.Value[0]
		nanos += s.Value[1]
		if s.Value[1] != s.Value[0]*samplePeriod {
			t.Errorf("sample values %v: want the period %d per sample", s.Value, samplePeriod)
		}
	}
	if count != wantSamples || nanos != wantSamples*samplePeriod {
		t.Errorf("samples %d (%d ns), want %d (%d ns)", count, nanos, wantSamples, wantSamples*samplePeriod)
	}
	types := fmt.Sprint(p.SampleType[0].Type, p.SampleType[0].Unit, p.SampleType[1].Type, p.SampleType[1].Unit)
	if types != "samplescountcpu-clocknanoseconds" || p.Period != samplePeriod || p.PeriodType.Type != "cpu-clock" {
		t.Errorf("sample types %s, period %d %v", types, p.Period, p.PeriodType)
	}
	if p.DurationNanos <= 0 || p.DurationNanos > 2e9 {
		t.Errorf("duration %d ns: want the span of the samples, under 2 s", p.DurationNanos)
	}
}

func TestFixtureMappings(t *testing.T) {
	p, _ := parseFixture(t)
	var kernel, binaries, vdso []*pprof.Mapping
	for _, m := range p.Mapping {
		switch m.File {
		case KernelMapping:
			kernel = append(kernel, m)
		case "/tmp/kp/pb":
			binaries = append(binaries, m)
		case "[vdso]":
			vdso = append(vdso, m)
		}
	}
	if len(kernel) != 1 || kernel[0].Start != kernelStart || kernel[0].Limit != kernelStart+0x120bb08 {
		t.Fatalf("kernel mappings %v: want one at %#x", kernel, kernelStart)
	}
	if len(binaries) != 2 || binaries[0].Start != binaryStart || binaries[1].Start != binaryStart {
		t.Fatalf("binary mappings %v: want one per process at %#x", binaries, binaryStart)
	}
	if len(vdso) != 1 || vdso[0].Start != writerVDSO {
		t.Fatalf("vdso mappings %v: want the writer process's at %#x", vdso, writerVDSO)
	}
	if p.Mapping[0].File != "/tmp/kp/pb" {
		t.Errorf("first mapping %s: pprof names the profile after it, want the program", p.Mapping[0].File)
	}
	if got := asPprofSees(t, p).Mapping[0].File; got != "/tmp/kp/pb" {
		t.Errorf("first mapping once written, read and merged as pprof does: %s, want the program", got)
	}
	for _, m := range p.Mapping {
		if !m.HasFunctions {
			t.Errorf("mapping %s: HasFunctions unset, pprof would try to symbolize it again", m.File)
		}
	}
	// Every frame lies inside its mapping, at its run-time address.
	kernelFrames := 0
	for _, l := range p.Location {
		m := l.Mapping
		if m == nil {
			t.Errorf("location %#x has no mapping", l.Address)
			continue
		}
		if l.Address < m.Start || l.Address >= m.Limit {
			t.Errorf("location %#x (%s) outside its mapping %s %#x-%#x", l.Address, name(l), m.File, m.Start, m.Limit)
		}
		if m.File == KernelMapping {
			kernelFrames++
		}
		if name(l) == "runtime.goexit.abi0" && l.Address != binaryStart+0x87e01 {
			t.Errorf("runtime.goexit.abi0 at %#x: want the file offset 0x87e01 placed at %#x", l.Address, binaryStart)
		}
		if name(l) == "__vdso_clock_gettime" && l.Address != writerVDSO+0xbae {
			t.Errorf("__vdso_clock_gettime at %#x, want %#x", l.Address, writerVDSO+0xbae)
		}
	}
	if kernelFrames == 0 {
		t.Error("no kernel frame")
	}
}

func name(l *pprof.Location) string {
	if len(l.Line) == 0 {
		return ""
	}
	return l.Line[0].Function.Name
}

// stack names a sample's frames, leaf first.
func stack(s *pprof.Sample) string {
	names := make([]string, len(s.Location))
	for i, l := range s.Location {
		names[i] = name(l)
	}
	return strings.Join(names, ";")
}

func TestFixtureLabels(t *testing.T) {
	p, _ := parseFixture(t)
	cases := []struct {
		role, process string
		pid, tid      int64
		calls         string // a function every stack of the role passes through
		kernel        string // a kernel function some stack of the role shows
	}{
		{"reader", "main", readerPID, readerTID, "pipebench.(*reader).loop", "do_epoll_wait"},
		{"writer", "writer", writerPID, writerTID, "pipebench.(*writer).run", "anon_pipe_write"},
	}
	for _, c := range cases {
		t.Run(c.role, func(t *testing.T) {
			n, sawKernel := 0, false
			for _, s := range p.Sample {
				if !s.HasLabel("role", c.role) {
					continue
				}
				n++
				if !s.HasLabel("process", c.process) || s.NumLabel["pid"][0] != c.pid || s.NumLabel["tid"][0] != c.tid || !s.HasLabel("comm", "pb") {
					t.Errorf("sample labels %v %v: want process %s, pid %d, tid %d, comm pb", s.Label, s.NumLabel, c.process, c.pid, c.tid)
				}
				st := stack(s)
				if !strings.Contains(st, c.calls) {
					t.Errorf("%s stack without %s: %s", c.role, c.calls, st)
				}
				sawKernel = sawKernel || strings.Contains(st, c.kernel)
			}
			if n == 0 || !sawKernel {
				t.Errorf("%d %s samples, kernel function %s seen: %v", n, c.role, c.kernel, sawKernel)
			}
		})
	}
	for _, s := range p.Sample {
		tid := s.NumLabel["tid"][0]
		if tid != readerTID && tid != writerTID && !s.HasLabel("role", OtherRole) {
			t.Errorf("thread %d labelled %v, want role %s", tid, s.Label["role"], OtherRole)
		}
	}
}

// roundTrip writes a profile and parses it back.
func roundTrip(t *testing.T, p *pprof.Profile) *pprof.Profile {
	t.Helper()
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	q, err := pprof.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func TestRoundTrip(t *testing.T) {
	p, _ := parseFixture(t)
	q := roundTrip(t, p)
	if err := q.CheckValid(); err != nil {
		t.Fatal(err)
	}
	if got, want := summary(q), summary(p); !slices.Equal(got, want) {
		t.Errorf("round trip changed the samples:\n got %v\nwant %v", got, want)
	}
	if q.Period != p.Period || q.DurationNanos != p.DurationNanos || q.DefaultSampleType != "cpu-clock" {
		t.Errorf("round trip: period %d duration %d default %q", q.Period, q.DurationNanos, q.DefaultSampleType)
	}
	files := func(p *pprof.Profile) []string {
		var f []string
		for _, m := range p.Mapping {
			f = append(f, fmt.Sprintf("%s@%#x", m.File, m.Start))
		}
		sort.Strings(f)
		return f
	}
	if got, want := files(q), files(p); !slices.Equal(got, want) {
		t.Errorf("round trip changed the mappings: got %v, want %v", got, want)
	}
}

// summary is a profile's samples as sorted text: values, labels, stack.
func summary(p *pprof.Profile) []string {
	var out []string
	for _, s := range p.Sample {
		out = append(out, fmt.Sprint(s.Value, s.Label, s.NumLabel, stack(s)))
	}
	sort.Strings(out)
	return out
}

// Lines the fixture does not hold, each a small perf script of its own.
func TestParseCases(t *testing.T) {
	const kmap = "swapper 0/0 0.000000: PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x1000000) @ 0xffffffff81000000]: x [kernel.kallsyms]_text\n"
	cases := []struct {
		name, text string
		// want is the one sample's stack as "function@mapping" leaf first
		// ("?" for a frame without a function, "-" without a mapping).
		want    string
		labels  string
		wantErr string
	}{
		{
			name: "no call graph: the frame shares the header's line",
			text: kmap + "pb 1/2 5.000000001: 1000 cpu-clock:  ffffffff81000010 pipe_read ([kernel.kallsyms])\n",
			want: "pipe_read@[kernel.kallsyms]",
		},
		{
			name: "unknown symbol and dso",
			text: "pb 1/2 5.0: 1000 cpu-clock:\n\t0 [unknown] ([unknown])\n\t401000 main.main (/bin/pb)\n",
			want: "?@-;main.main@/bin/pb",
		},
		{
			name: "parentheses in the symbol and the file name, symbol offsets",
			text: "pb 1/2 5.0: 1000 cpu-clock:\n\t1234 pkg.(*T).m+0x1f (/tmp/pb (deleted))\n",
			want: "pkg.(*T).m@/tmp/pb (deleted)",
		},
		{
			name: "comm right-aligned",
			text: "             cafe 1/2 5.0: 1000 cpu-clock:\n\t1234 f (/bin/x)\n        1300 g (/bin/x)\n",
			want: "f@/bin/x;g@/bin/x",
		},
		{
			name:   "comm with spaces, other events ignored",
			text:   "Web Content 7/9 5.0: PERF_RECORD_COMM: Web Content:7/9\nWeb Content 7/9 5.5: 1000 cpu-clock:\n\t1234 f (/bin/x)\n",
			want:   "f@/bin/x",
			labels: "map[comm:[Web Content]] map[pid:[7] tid:[9]]",
		},
		{
			name: "kernel frame past the announced text stays in the kernel",
			text: kmap + "pb 1/2 5.0: 1000 cpu-clock:\n\tffffffff82100000 late_text ([kernel.kallsyms])\n\tffffffffc0001000 nft_do_chain ([nf_tables])\n",
			want: "late_text@[kernel.kallsyms];nft_do_chain@[nf_tables]",
		},
		{
			name:    "two events",
			text:    "pb 1/2 5.0: 1000 cpu-clock:\n\t1 f (/x)\n\npb 1/2 5.1: 7 page-faults:\n\t1 f (/x)\n",
			wantErr: "line 4: sample of event page-faults after samples of cpu-clock",
		},
		{
			name:    "frame before any sample",
			text:    "\tffffffff81000010 pipe_read ([kernel.kallsyms])\n",
			wantErr: "line 1: frame outside a sample",
		},
		{
			name:    "not perf script output",
			text:    "hello world\n",
			wantErr: "line 1: not a sample or mmap event",
		},
		{
			name:    "missing fields",
			text:    "pb 1/2 5.0: cpu-clock:\n",
			wantErr: "line 1: sample without period and event",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Parse(strings.NewReader(c.text), Options{})
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Sample) != 1 {
				t.Fatalf("%d samples, want 1", len(p.Sample))
			}
			s := p.Sample[0]
			var frames []string
			for _, l := range s.Location {
				fn, file := name(l), "-"
				if fn == "" {
					fn = "?"
				}
				if l.Mapping != nil {
					file = l.Mapping.File
				}
				frames = append(frames, fn+"@"+file)
				if l.Mapping != nil && (l.Address < l.Mapping.Start || l.Address >= l.Mapping.Limit) {
					t.Errorf("%s at %#x outside its mapping %#x-%#x", fn, l.Address, l.Mapping.Start, l.Mapping.Limit)
				}
			}
			if got := strings.Join(frames, ";"); got != c.want {
				t.Errorf("stack %s, want %s", got, c.want)
			}
			if c.labels != "" {
				if got := fmt.Sprint(s.Label, " ", s.NumLabel); got != c.labels {
					t.Errorf("labels %s, want %s", got, c.labels)
				}
			}
			if _, ok := s.Label["role"]; ok {
				t.Errorf("role label %v without Options.Roles", s.Label["role"])
			}
		})
	}
}

func TestMergesIdenticalSamples(t *testing.T) {
	one := "pb 1/2 5.0: 1000 cpu-clock:\n\t1234 f (/bin/x)\n\t1300 g (/bin/x)\n\n"
	p, err := Parse(strings.NewReader(one+one+strings.Replace(one, "1/2", "1/3", 1)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := summary(p)
	want := []string{"[1 1000] map[comm:[pb]] map[pid:[1] tid:[3]]f;g", "[2 2000] map[comm:[pb]] map[pid:[1] tid:[2]]f;g"}
	if !slices.Equal(got, want) {
		t.Errorf("samples %v, want %v", got, want)
	}
	if len(p.Location) != 2 || len(p.Function) != 2 || len(p.Mapping) != 1 {
		t.Errorf("%d locations, %d functions, %d mappings: want 2, 2, 1", len(p.Location), len(p.Function), len(p.Mapping))
	}
}

// TestPeriod: the profile's Period holds for every sample, and the values
// stay in the units SampleType declares.
func TestPeriod(t *testing.T) {
	sample := func(period int, event string) string {
		return fmt.Sprintf("pb 1/2 5.0: %d %s:\n\t1234 f (/bin/x)\n\n", period, event)
	}
	cases := []struct {
		name, text string
		period     int64
		unit       string
		values     []int64 // summed over the samples
		comment    string
	}{
		{"cpu-clock, one period", sample(250000, "cpu-clock") + sample(250000, "cpu-clock"), 250000, "nanoseconds", []int64{2, 500000}, ""},
		{"periods that differ: their mean", sample(7, "page-faults") + sample(13, "page-faults") + sample(11, "page-faults"), 10, "count", []int64{3, 31},
			"sample periods from 7 to 13 count; Period is their mean"},
		{"no sample", "", 0, "nanoseconds", []int64{0, 0}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Parse(strings.NewReader(c.text), Options{})
			if err != nil {
				t.Fatal(err)
			}
			sums := []int64{0, 0}
			for _, s := range p.Sample {
				sums[0] += s.Value[0]
				sums[1] += s.Value[1]
			}
			if p.Period != c.period || p.PeriodType.Unit != c.unit || p.SampleType[1].Unit != c.unit || !slices.Equal(sums, c.values) {
				t.Errorf("period %d %s, values %v in %s: want %d, %v in %s", p.Period, p.PeriodType.Unit, sums, p.SampleType[1].Unit, c.period, c.values, c.unit)
			}
			if got := strings.Join(p.Comments, "; "); got != c.comment {
				t.Errorf("comments %q, want %q", got, c.comment)
			}
		})
	}
}
