package profile

import (
	"fmt"
	"strings"
	"testing"

	pprof "github.com/google/pprof/profile"
)

// handMade is a profile of three stacks (leaf first) over two threads, the
// kernel's frames at kernel addresses:
//
//	reader: pipe_read <- read <- main.loop     x5
//	reader: main.loop                          x1
//	writer: pipe_write <- write <- main.loop   x3
//	writer: an address without a symbol in /bin/pb, x1
//	writer: an address without any mapping, x1
func handMade() *pprof.Profile {
	kernel := &pprof.Mapping{ID: 1, File: "[kernel.kallsyms]"}
	bin := &pprof.Mapping{ID: 2, File: "/bin/pb"}
	var fns []*pprof.Function
	var locs []*pprof.Location
	loc := func(m *pprof.Mapping, name string) *pprof.Location {
		addr := uint64(0x400000 + 0x1000*len(locs))
		if m == kernel {
			addr = 0xffffffff81000000 + 0x1000*uint64(len(locs))
		}
		l := &pprof.Location{ID: uint64(len(locs) + 1), Mapping: m, Address: addr}
		if name != "" {
			f := &pprof.Function{ID: uint64(len(fns) + 1), Name: name}
			fns = append(fns, f)
			l.Line = []pprof.Line{{Function: f}}
		}
		locs = append(locs, l)
		return l
	}
	loop, pread, pwrite := loc(bin, "main.loop"), loc(kernel, "pipe_read"), loc(kernel, "pipe_write")
	read, write, anon, bare := loc(kernel, "read"), loc(kernel, "write"), loc(bin, ""), loc(nil, "")
	sample := func(n int64, role string, stack ...*pprof.Location) *pprof.Sample {
		return &pprof.Sample{Location: stack, Value: []int64{n, n * 10}, Label: map[string][]string{"role": {role}}}
	}
	return &pprof.Profile{
		SampleType: []*pprof.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		Sample: []*pprof.Sample{
			sample(5, "reader", pread, read, loop),
			sample(1, "reader", loop),
			sample(3, "writer", pwrite, write, loop),
			sample(1, "writer", anon, loop),
			sample(1, "writer", bare),
		},
		Mapping: []*pprof.Mapping{kernel, bin}, Location: locs, Function: fns,
	}
}

func rows(t Table) string {
	var b strings.Builder
	for _, r := range t.Rows {
		fmt.Fprintf(&b, "%s=%d/%.3f ", r.Name, r.Value, r.Share)
	}
	return strings.TrimSpace(b.String())
}

func TestTables(t *testing.T) {
	p := handMade()
	if err := p.CheckValid(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		table Table
		total int64
		want  string
	}{
		{"flat samples", Flat(p, 0, nil), 11,
			"pipe_read=5/0.455 pipe_write=3/0.273 [unknown]=1/0.091 [unknown] (pb)=1/0.091 main.loop=1/0.091"},
		{"flat of the second value", Flat(p, 1, nil), 110,
			"pipe_read=50/0.455 pipe_write=30/0.273 [unknown]=10/0.091 [unknown] (pb)=10/0.091 main.loop=10/0.091"},
		{"flat of one role", Flat(p, 0, LabelIs("role", "reader")), 6,
			"pipe_read=5/0.833 main.loop=1/0.167"},
		{"by role", ByLabel(p, 0, "role", nil), 11,
			"reader=6/0.545 writer=5/0.455"},
		{"by a label no sample has", ByLabel(p, 0, "process", nil), 11,
			"=11/1.000"},
		{"by leaf space", ByLeafSpace(p, 0, nil), 11,
			"kernel=8/0.727 user=3/0.273"},
		{"by leaf space of one role", ByLeafSpace(p, 0, LabelIs("role", "writer")), 5,
			"kernel=3/0.600 user=2/0.400"},
		{"no sample matches", Flat(p, 0, LabelIs("role", "nobody")), 0, ""},
		{"index out of range", Flat(p, 2, nil), 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.table.Total != c.total {
				t.Errorf("total %d, want %d", c.table.Total, c.total)
			}
			if got := rows(c.table); got != c.want {
				t.Errorf("rows\n got %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestSampleIndex(t *testing.T) {
	p := handMade()
	cases := []struct {
		typ     string
		want    int
		wantErr bool
	}{
		{"samples", 0, false},
		{"cpu", 1, false},
		{"alloc_space", 0, true},
	}
	for _, c := range cases {
		i, err := SampleIndex(p, c.typ)
		if i != c.want || (err != nil) != c.wantErr {
			t.Errorf("SampleIndex(%q) = %d, %v; want %d, error %v", c.typ, i, err, c.want, c.wantErr)
		}
	}
}

func TestInKernel(t *testing.T) {
	cases := []struct {
		name string
		file string // "" for no mapping
		addr uint64
		want bool
	}{
		{"kernel text", "[kernel.kallsyms]", 0xffffffff813a4413, true},
		{"a module", "[kvm]", 0xffffffffc0a1b2c3, true},
		{"a module by its path", "/lib/modules/6.1.0/kernel/arch/x86/kvm/kvm.ko", 0xffffffffc0a1b2c3, true},
		{"kernel address perf could not resolve", "", 0xffffffff82000010, true},
		{"kernel with 5-level paging", "[kernel.kallsyms]", 0xff11000000001000, true},
		{"non-PIE executable", "/tmp/pp/pipebench", 0x40a8ae, false},
		{"libc", "/usr/lib/x86_64-linux-gnu/libc.so.6", 0x7fcf8b753050, false},
		{"vdso", "[vdso]", 0x7fb646bc8bae, false},
		{"vsyscall, user code in the kernel's half", "[vsyscall]", 0xffffffffff600400, false},
		{"user address perf could not resolve", "", 0x7ffc12345678, false},
	}
	for _, c := range cases {
		l := &pprof.Location{Address: c.addr}
		if c.file != "" {
			l.Mapping = &pprof.Mapping{File: c.file}
		}
		if got := InKernel(l); got != c.want {
			t.Errorf("%s: InKernel(%s %#x) = %v, want %v", c.name, c.file, c.addr, got, c.want)
		}
	}
}
