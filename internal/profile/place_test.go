package profile

import (
	"fmt"
	"strings"
	"testing"

	pprof "github.com/google/pprof/profile"
)

// placementMmaps announce, in perf 6.1's words, the kernel and the
// mappings of process 500: a non-PIE executable whose text (28 MiB at
// 0x400000) holds file offsets that are also addresses inside it, libc
// (PIE, its text at file offset 0x26000), the vdso and an executable heap.
const placementMmaps = `swapper     0/0         0.000000: PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x1276f48) @ 0xffffffff81000000]: x [kernel.kallsyms]_text
kbench     0/0         0.000000: PERF_RECORD_MMAP2 500/500: [0x400000(0x1c00000) @ 0 fe:00 9978115 0]: r-xp /opt/kbench/kbench
kbench     0/0         0.000000: PERF_RECORD_MMAP2 500/500: [0x7fcf8b73d000(0x156000) @ 0x26000 fe:00 326269 0]: r-xp /usr/lib/x86_64-linux-gnu/libc.so.6
kbench     0/0         0.000000: PERF_RECORD_MMAP2 500/500: [0x7fcf8b90a000(0x2000) @ 0 00:00 0 0]: r-xp [vdso]
kbench     0/0         0.000000: PERF_RECORD_MMAP2 500/500: [0x2a4e000(0x21000) @ 0 00:00 0 0]: rwxp [heap]
`

// placementFrames are one sample's frames, leaf first: what perf before
// 6.4 printed (offset), what later perf prints (addr), and where the
// frame is.
var placementFrames = []struct {
	sym, dso     string
	offset, addr uint64
}{
	{"vmx_vcpu_run", "[kvm_intel]", 0xffffffffc0a1b2c3, 0xffffffffc0a1b2c3},
	{"entry_SYSCALL_64_after_hwframe", KernelMapping, 0xffffffff81000130, 0xffffffff81000130},
	{"__GI___libc_write", "/usr/lib/x86_64-linux-gnu/libc.so.6", 0x11ba5f, 0x7fcf8b73d000 + 0x11ba5f - 0x26000},
	{"__vdso_clock_gettime", "[vdso]", 0xbae, 0x7fcf8b90abae},
	{"jitted", "[heap]", 0x2a4e010, 0x2a4e010},
	{"main.deep", "/opt/kbench/kbench", 0x1234567, 0x400000 + 0x1234567},
	{"main.main", "/opt/kbench/kbench", 0xa8ae, 0x40a8ae},
}

// placementScript is the perf script text of placementFrames, printed as
// perf before 6.4 did (offsets) or as later perf does.
func placementScript(offsets bool) string {
	var b strings.Builder
	b.WriteString(placementMmaps)
	b.WriteString("kbench   500/500   10.000000:     250000 cpu-clock: \n")
	for _, f := range placementFrames {
		printed := f.addr
		if offsets {
			printed = f.offset
		}
		fmt.Fprintf(&b, "\t%16x %s (%s)\n", printed, f.sym, f.dso)
	}
	return b.String()
}

func TestPlaceFrames(t *testing.T) {
	for _, c := range []struct {
		name string
		opt  Options
	}{
		{"perf 6.1: user frames as file offsets", Options{}},
		{"perf 6.4: user frames at their addresses", Options{RunTimeAddresses: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := Parse(strings.NewReader(placementScript(!c.opt.RunTimeAddresses)), c.opt)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Sample) != 1 || len(p.Sample[0].Location) != len(placementFrames) {
				t.Fatalf("samples %v: want one of %d frames", p.Sample, len(placementFrames))
			}
			for i, l := range p.Sample[0].Location {
				f := placementFrames[i]
				if l.Mapping == nil || l.Mapping.File != f.dso || l.Address != f.addr {
					t.Errorf("%s at %#x in %v, want %#x in %s", name(l), l.Address, l.Mapping, f.addr, f.dso)
					continue
				}
				if l.Address < l.Mapping.Start || l.Address >= l.Mapping.Limit {
					t.Errorf("%s at %#x outside its mapping %#x-%#x", f.sym, l.Address, l.Mapping.Start, l.Mapping.Limit)
				}
			}
		})
	}
}

// TestFrameOutsideItsFile: an offset no mmap of its file holds keeps its
// file's name, in a mapping of its own, at the address perf printed.
func TestFrameOutsideItsFile(t *testing.T) {
	text := placementMmaps + "kbench 500/500 10.0: 250000 cpu-clock:\n\t1c00010 past_the_end (/opt/kbench/kbench)\n"
	p, err := Parse(strings.NewReader(text), Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := p.Sample[0].Location[0]
	if l.Mapping == nil || l.Mapping.File != "/opt/kbench/kbench" || l.Address != 0x1c00010 || l.Mapping.Start != 0x1c00010 {
		t.Errorf("frame at %#x in %v, want %#x in a mapping of /opt/kbench/kbench of its own", l.Address, l.Mapping, 0x1c00010)
	}
}

// TestMainMapping: pprof names a profile after its first mapping, which
// must be the recorded program's, whatever perf's frames used first.
func TestMainMapping(t *testing.T) {
	const exe = "/opt/kbench/kbench"
	libcFirst := placementMmaps + "kbench 500/500 10.0: 250000 cpu-clock:\n\t11ba5f __GI___libc_write (/usr/lib/x86_64-linux-gnu/libc.so.6)\n\ta8ae main.main (/opt/kbench/kbench)\n"
	onlyLibc := placementMmaps + "kbench 500/500 10.0: 250000 cpu-clock:\n\t11ba5f __GI___libc_write (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
	noMmaps := "kbench 500/500 10.0: 250000 cpu-clock:\n\t7fcf8b7fca5f __GI___libc_write (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
	cases := []struct {
		name, text, executable string
		// want is the first mapping: file, start, limit.
		want string
	}{
		{"libc's frame first, executable named", libcFirst, exe, exe + " 0x400000-0x2000000"},
		{"libc's frame first, executable the first file announced", libcFirst, "", exe + " 0x400000-0x2000000"},
		{"no frame in the executable: its mmap event", onlyLibc, exe, exe + " 0x400000-0x2000000"},
		{"no frame in the executable, no mmap event: its name", noMmaps, exe, exe + " 0x0-0x0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Parse(strings.NewReader(c.text), Options{Executable: c.executable})
			if err != nil {
				t.Fatal(err)
			}
			if got := firstMapping(p); got != c.want {
				t.Errorf("first mapping %s, want %s", got, c.want)
			}
			if got := firstMapping(asPprofSees(t, p)); got != c.want {
				t.Errorf("first mapping once written, read and merged as pprof does: %s, want %s", got, c.want)
			}
		})
	}
}

func firstMapping(p *pprof.Profile) string {
	if len(p.Mapping) == 0 {
		return "none"
	}
	m := p.Mapping[0]
	return fmt.Sprintf("%s %#x-%#x", m.File, m.Start, m.Limit)
}

// asPprofSees is the profile as `go tool pprof` holds it before naming it:
// written, parsed, merged (its driver merges the profiles it fetches).
func asPprofSees(t *testing.T, p *pprof.Profile) *pprof.Profile {
	t.Helper()
	m, err := pprof.Merge([]*pprof.Profile{roundTrip(t, p)})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestPrintsAddresses(t *testing.T) {
	cases := []struct {
		version string
		want    bool
		wantErr bool
	}{
		{"perf version 6.1.187\n", false, false},
		{"perf version 6.3.13", false, false},
		{"perf version 5.10.0", false, false},
		{"perf version 6.4.0", true, false},
		{"perf version 6.12.12\n", true, false},
		{"perf version 6.8.0-rc3.g3e5b1a7", true, false},
		{"perf version 7.0", true, false},
		{"perf: command not found", false, true},
	}
	for _, c := range cases {
		got, err := printsAddresses(c.version)
		if got != c.want || (err != nil) != c.wantErr {
			t.Errorf("printsAddresses(%q) = %v, %v; want %v, error %v", c.version, got, err, c.want, c.wantErr)
		}
	}
}
