package profile

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	pprof "github.com/google/pprof/profile"
)

// mmap is an executable mapping perf announced for a process.
type mmap struct {
	start, limit, pgoff uint64
	file                string
	m                   *pprof.Mapping // made when a frame first uses it
}

// "PERF_RECORD_MMAP2 19163/19163: [0x400000(0x124000) @ 0 fe:00 9979026 0]: r-xp /tmp/kp/pb"
var mmapRE = regexp.MustCompile(`^PERF_RECORD_MMAP2? (-?\d+)/-?\d+: \[0x([0-9a-f]+)\(0x([0-9a-f]+)\) @ (\S+?)(?: [^\]]*)?\]: \S+ (.*)$`)

// mmap records an mmap event. The kernel's and its modules' are announced
// for pid -1 and kept there.
func (p *parser) mmap(rest string) error {
	m := mmapRE.FindStringSubmatch(rest)
	if m == nil {
		return fmt.Errorf("mmap event not understood: %q", rest)
	}
	pid, _ := strconv.Atoi(m[1])
	start, err1 := strconv.ParseUint(m[2], 16, 64)
	size, err2 := strconv.ParseUint(m[3], 16, 64)
	pgoff, err3 := strconv.ParseUint(m[4], 0, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return fmt.Errorf("mmap event numbers not understood: %q", rest)
	}
	file := m[5]
	if strings.HasPrefix(file, KernelMapping) {
		// "[kernel.kallsyms]_text": the kernel's text, shared by every process.
		file, pid = KernelMapping, -1
	}
	mm := &mmap{start: start, limit: start + size, pgoff: pgoff, file: file}
	if file == KernelMapping {
		p.kernel = mm
	}
	if pid >= 0 && p.firstFile == "" && programFile(file) {
		p.firstFile = file
	}
	p.maps[pid] = append(p.maps[pid], mm)
	return nil
}

// place finds the mapping of a frame and its run-time address.
//
// perf prints the frames of the kernel and of its modules at their
// addresses. It printed user frames as offsets in their files before
// version 6.4 (its map_ip: offset = address - start + pgoff) and prints
// them at their addresses since; Options.RunTimeAddresses says which. A
// frame is a user frame when its dso is a file perf announced an mmap of
// for the frame's process: the mmap that holds the frame (the latest
// announced, if several do) gives its address, start + (offset - pgoff),
// whatever the file's size and wherever it is loaded (PIE or not).
// Mappings of no file ([heap], [stack], SysV shared memory) are printed at
// their addresses by every perf.
//
// A dso without an mmap event (a kernel module perf announced under its
// file's path, a recording without --show-mmap-events), or a frame that no
// mmap of its file holds, gets a mapping of the dso's name that covers the
// addresses as perf printed them.
func (p *parser) place(pid int, dso string, printed uint64) (*pprof.Mapping, uint64) {
	if dso == unknown {
		return nil, printed
	}
	if mm, addr := p.userMmap(pid, dso, printed); mm != nil {
		return p.mapping(mm), addr
	}
	if mm := p.kernelMmap(dso, printed); mm != nil {
		return p.mapping(mm), printed
	}
	return p.b.looseMapping(dso, printed), printed
}

// userMmap finds the mmap of dso in process pid that holds a frame perf
// printed as printed, and the frame's address.
func (p *parser) userMmap(pid int, dso string, printed uint64) (*mmap, uint64) {
	list := p.maps[pid]
	for i := len(list) - 1; i >= 0; i-- {
		mm := list[i]
		switch {
		case mm.file != dso:
		case p.opt.RunTimeAddresses || noFile(mm.file):
			if printed >= mm.start && printed < mm.limit {
				return mm, printed
			}
		case printed >= mm.pgoff && printed-mm.pgoff < mm.limit-mm.start:
			return mm, mm.start + (printed - mm.pgoff)
		}
	}
	return nil, 0
}

// noFile says whether perf takes a mapping for memory of no file (its
// is_no_dso_memory), whose frames it prints at their addresses.
func noFile(file string) bool {
	return file == "[heap]" || strings.HasPrefix(file, "[stack") || strings.HasPrefix(file, "/SYSV")
}

// kernelMmap finds the kernel's or a module's mmap of dso that holds addr.
// Kernel text past the announced range ([kernel.kallsyms] only announces
// from _text) is still the kernel's: its mapping grows to cover it.
func (p *parser) kernelMmap(dso string, addr uint64) *mmap {
	list := p.maps[-1]
	for i := len(list) - 1; i >= 0; i-- {
		if mm := list[i]; mm.file == dso && addr >= mm.start && addr < mm.limit {
			return mm
		}
	}
	if dso != KernelMapping || p.kernel == nil {
		return nil
	}
	k := p.kernel
	k.start, k.limit = min(k.start, addr), max(k.limit, addr+1)
	if k.m != nil {
		k.m.Start, k.m.Limit = k.start, k.limit
	}
	return k
}

// mapping is the profile's mapping of an mmap, made on first use.
func (p *parser) mapping(mm *mmap) *pprof.Mapping {
	if mm.m == nil {
		mm.m = p.b.mapping(mm.start, mm.limit, mm.pgoff, mm.file)
	}
	return mm.m
}

// mainMapping names the profile's main binary, Options.Executable or else
// the first program file announced, and makes sure the profile has a
// mapping of it even if no frame fell in it: that of its first mmap event
// (by pid), or one of its name alone when perf announced none.
func (p *parser) mainMapping() string {
	file := p.opt.Executable
	if file == "" {
		file = p.firstFile
	}
	if file == "" || p.b.hasFile(file) {
		return file
	}
	for _, pid := range slices.Sorted(maps.Keys(p.maps)) {
		for _, mm := range p.maps[pid] {
			if pid >= 0 && mm.file == file {
				p.mapping(mm)
				return file
			}
		}
	}
	p.b.mapping(0, 0, 0, file)
	return file
}

// "perf version 6.1.187", "perf version 6.12.12"
var versionRE = regexp.MustCompile(`^perf version (\d+)\.(\d+)`)

// printsAddresses says, from what `perf version` printed, whether that
// perf's script prints user frames at their run-time addresses (6.4 and
// later) rather than as offsets in their files.
func printsAddresses(version string) (bool, error) {
	m := versionRE.FindStringSubmatch(strings.TrimSpace(version))
	if m == nil {
		return false, fmt.Errorf("perf version %q not understood: cannot tell how perf script prints user addresses", strings.TrimSpace(version))
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	return major > 6 || major == 6 && minor >= 4, nil
}
