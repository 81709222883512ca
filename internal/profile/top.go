package profile

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"

	pprof "github.com/google/pprof/profile"
)

// Row is one line of a table.
type Row struct {
	Name  string
	Value int64
	// Share is Value's part of the table's Total, from 0 to 1.
	Share float64
}

// Table is a profile's samples grouped by one key, largest first (ties by
// name).
type Table struct {
	// SampleType names the value summed, e.g. "samples".
	SampleType string
	Unit       string
	Total      int64
	Rows       []Row
}

// SampleIndex finds the sample value of the given type ("samples"); it is
// an error if the profile has none.
func SampleIndex(p *pprof.Profile, typ string) (int, error) {
	for i, st := range p.SampleType {
		if st.Type == typ {
			return i, nil
		}
	}
	var have []string
	for _, st := range p.SampleType {
		have = append(have, st.Type)
	}
	return 0, fmt.Errorf("profile has no %q values (it has %v)", typ, have)
}

// Flat groups value index by the function each sample was in when taken (its
// leaf frame's innermost function): flat, self time. Only samples that m
// matches count. A leaf without a symbol
// counts under "[unknown]", with its mapping's file when there is one.
func Flat(p *pprof.Profile, index int, m Match) Table {
	return Group(p, index, m, func(s *pprof.Sample) string {
		if len(s.Location) == 0 {
			return "[no stack]"
		}
		return leafName(s.Location[0])
	})
}

func leafName(l *pprof.Location) string {
	if len(l.Line) > 0 && l.Line[0].Function != nil {
		return l.Line[0].Function.Name
	}
	if l.Mapping != nil && l.Mapping.File != "" {
		return "[unknown] (" + filepath.Base(l.Mapping.File) + ")"
	}
	return "[unknown]"
}

// ByLabel groups value index by the sample's string label key; samples
// without it count under "". Only samples that m matches count.
func ByLabel(p *pprof.Profile, index int, key string, m Match) Table {
	return Group(p, index, m, func(s *pprof.Sample) string {
		if v := s.Label[key]; len(v) > 0 {
			return v[0]
		}
		return ""
	})
}

// The spaces ByLeafSpace groups samples by.
const (
	KernelSpace = "kernel"
	UserSpace   = "user"
)

// ByLeafSpace groups value index by the space each sample was taken in:
// KernelSpace when its leaf frame is InKernel, UserSpace otherwise;
// samples without a stack count under "". Only samples that m matches
// count.
func ByLeafSpace(p *pprof.Profile, index int, m Match) Table {
	return Group(p, index, m, func(s *pprof.Sample) string {
		switch {
		case len(s.Location) == 0:
			return ""
		case InKernel(s.Location[0]):
			return KernelSpace
		}
		return UserSpace
	})
}

// kernelHalf is where the kernel's half of a 64-bit address space begins:
// the top bit set. On x86_64 the kernel lies from 0xffff800000000000 (with
// 5-level paging from 0xff00000000000000) and nothing lies between the
// halves; arm64, riscv64 and ppc64 put the kernel up there too.
const kernelHalf = 1 << 63

// InKernel says whether a location is kernel code. The rule is its
// address: kernel code, the kernel's and its modules', lies in the
// kernel's half of the address space, however its mapping is named
// ("[kernel.kallsyms]", "[kvm]", or no mapping when perf could not resolve
// the address), and user code in the other half. The one exception is
// x86_64's [vsyscall] page, a user mapping at 0xffffffffff600000.
func InKernel(l *pprof.Location) bool {
	if l.Mapping != nil && l.Mapping.File == "[vsyscall]" {
		return false
	}
	return l.Address >= kernelHalf
}

// Match selects samples; nil selects every sample.
type Match func(*pprof.Sample) bool

// LabelIs matches the samples whose string label key has the value.
func LabelIs(key, value string) Match {
	return func(s *pprof.Sample) bool { return s.HasLabel(key, value) }
}

// Group groups value index by any key of a sample; Flat and ByLabel are
// its common cases. Only samples that m matches count.
func Group(p *pprof.Profile, index int, m Match, key func(*pprof.Sample) string) Table {
	t := Table{}
	if index >= 0 && index < len(p.SampleType) {
		t.SampleType, t.Unit = p.SampleType[index].Type, p.SampleType[index].Unit
	}
	sums := map[string]int64{}
	for _, s := range p.Sample {
		if index < 0 || index >= len(s.Value) || (m != nil && !m(s)) {
			continue
		}
		v := s.Value[index]
		sums[key(s)] += v
		t.Total += v
	}
	for name, v := range sums {
		t.Rows = append(t.Rows, Row{Name: name, Value: v})
	}
	for i := range t.Rows {
		if t.Total != 0 {
			t.Rows[i].Share = float64(t.Rows[i].Value) / float64(t.Total)
		}
	}
	slices.SortFunc(t.Rows, func(a, b Row) int {
		if c := cmp.Compare(b.Value, a.Value); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	return t
}
