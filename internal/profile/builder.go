package profile

import (
	"cmp"
	"slices"
	"strconv"

	pprof "github.com/google/pprof/profile"
)

// builder holds a profile's tables while it is being made: one mapping per
// announced mmap (or per dso without one), one location per (mapping,
// address), one function per name, one sample per (thread, stack).
type builder struct {
	mappings   []*pprof.Mapping
	loose      map[string]*pprof.Mapping
	locations  []*pprof.Location
	locByAddr  map[locKey]*pprof.Location
	functions  []*pprof.Function
	funcByName map[string]*pprof.Function
	samples    []*pprof.Sample
	sampleBy   map[string]*pprof.Sample
	key        []byte
}

type locKey struct {
	mapping uint64 // 0 without a mapping
	addr    uint64
}

func newBuilder() *builder {
	return &builder{
		loose:      map[string]*pprof.Mapping{},
		locByAddr:  map[locKey]*pprof.Location{},
		funcByName: map[string]*pprof.Function{},
		sampleBy:   map[string]*pprof.Sample{},
	}
}

// mapping adds a mapping. Frames come with their symbols, so pprof must not
// try to symbolize them again: HasFunctions is set.
func (b *builder) mapping(start, limit, offset uint64, file string) *pprof.Mapping {
	m := &pprof.Mapping{ID: uint64(len(b.mappings) + 1), Start: start, Limit: limit, Offset: offset, File: file, HasFunctions: true}
	b.mappings = append(b.mappings, m)
	return m
}

// looseMapping is the mapping of a dso that no mmap event announced; it
// grows to cover every address seen in it.
func (b *builder) looseMapping(file string, addr uint64) *pprof.Mapping {
	m, ok := b.loose[file]
	if !ok {
		m = b.mapping(addr, addr+1, 0, file)
		b.loose[file] = m
	}
	m.Start, m.Limit = min(m.Start, addr), max(m.Limit, addr+1)
	return m
}

// location returns the location of addr in m, made with sym the first time
// ("[unknown]" leaves it without a function, as an address alone).
func (b *builder) location(m *pprof.Mapping, addr uint64, sym string) *pprof.Location {
	k := locKey{addr: addr}
	if m != nil {
		k.mapping = m.ID
	}
	if l, ok := b.locByAddr[k]; ok {
		return l
	}
	l := &pprof.Location{ID: uint64(len(b.locations) + 1), Mapping: m, Address: addr}
	if sym != unknown && sym != "" {
		l.Line = []pprof.Line{{Function: b.function(sym)}}
	}
	b.locations = append(b.locations, l)
	b.locByAddr[k] = l
	return l
}

func (b *builder) function(name string) *pprof.Function {
	if f, ok := b.funcByName[name]; ok {
		return f
	}
	f := &pprof.Function{ID: uint64(len(b.functions) + 1), Name: name, SystemName: name}
	b.functions = append(b.functions, f)
	b.funcByName[name] = f
	return f
}

// sample adds one perf sample; samples of one thread with the same stack
// and labels are merged, their values summed.
func (b *builder) sample(locs []*pprof.Location, period int64, labels map[string][]string, pid, tid int) {
	k := strconv.AppendInt(b.key[:0], int64(pid), 10)
	k = append(k, '/')
	k = strconv.AppendInt(k, int64(tid), 10)
	for _, key := range []string{"comm", "role", "process"} {
		if v, ok := labels[key]; ok {
			k = append(k, 0)
			k = append(k, v[0]...)
		}
	}
	for _, l := range locs {
		k = append(k, ',')
		k = strconv.AppendUint(k, l.ID, 10)
	}
	b.key = k
	if s, ok := b.sampleBy[string(k)]; ok {
		s.Value[0]++
		s.Value[1] += period
		return
	}
	s := &pprof.Sample{
		Location: locs,
		Value:    []int64{1, period},
		Label:    labels,
		NumLabel: map[string][]int64{"pid": {int64(pid)}, "tid": {int64(tid)}},
	}
	b.samples = append(b.samples, s)
	b.sampleBy[string(k)] = s
}

// hasFile says whether a mapping of file was made.
func (b *builder) hasFile(file string) bool {
	return slices.ContainsFunc(b.mappings, func(m *pprof.Mapping) bool { return m.File == file })
}

// profile assembles the tables. main is the file of the main binary; event
// names the second sample value, whose unit is nanoseconds for the clock
// events and a count otherwise.
func (b *builder) profile(main, event string, period, duration int64) *pprof.Profile {
	if event == "" {
		event = "cpu-clock" // no sample: what the Recorder records
	}
	// pprof takes the first mapping for the main binary (pprof.Merge keeps
	// it first) and names the profile after it: the main binary's mappings
	// (one per process) come first, then the other programs' files, then
	// the kernel and the other bracketed names.
	slices.SortStableFunc(b.mappings, func(x, y *pprof.Mapping) int {
		return cmp.Compare(rank(x, main), rank(y, main))
	})
	for i, m := range b.mappings {
		m.ID = uint64(i + 1)
	}
	unit := "count"
	if event == "cpu-clock" || event == "task-clock" {
		unit = "nanoseconds"
	}
	return &pprof.Profile{
		SampleType:        []*pprof.ValueType{{Type: "samples", Unit: "count"}, {Type: event, Unit: unit}},
		DefaultSampleType: event,
		PeriodType:        &pprof.ValueType{Type: event, Unit: unit},
		Period:            period,
		DurationNanos:     duration,
		Sample:            b.samples,
		Mapping:           b.mappings,
		Location:          b.locations,
		Function:          b.functions,
	}
}

// rank orders mappings: the main binary's, other programs' files, the rest.
func rank(m *pprof.Mapping, main string) int {
	switch {
	case main != "" && m.File == main:
		return 0
	case programFile(m.File):
		return 1
	}
	return 2
}

// programFile says whether a mapping's file is a program's or a library's,
// rather than the kernel, [vdso] or anonymous memory.
func programFile(file string) bool {
	return !(&pprof.Mapping{File: file}).Unsymbolizable()
}
