package profile_test

import (
	"strings"
	"testing"

	"github.com/pipebench/pipebench/internal/profile"
)

// TestKernelShareCountsModules: a sample taken in a kernel module is a
// sample in the kernel, as one in the kernel's own text is.
func TestKernelShareCountsModules(t *testing.T) {
	const text = `swapper 0/0 0.000000: PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x1276f48) @ 0xffffffff81000000]: x [kernel.kallsyms]_text
pb 0/0 0.000000: PERF_RECORD_MMAP2 7/7: [0x400000(0x362000) @ 0 fe:00 9978115 0]: r-xp /tmp/pp/pipebench
pb 7/7 1.000000: 250000 cpu-clock:
	ffffffffc0a1b2c3 virtnet_poll ([virtio_net])
	ffffffff81000130 entry_SYSCALL_64_after_hwframe ([kernel.kallsyms])
	a8ae main.main (/tmp/pp/pipebench)

pb 7/7 1.000250: 250000 cpu-clock:
	ffffffff816c88b6 anon_pipe_read ([kernel.kallsyms])
	a8ae main.main (/tmp/pp/pipebench)

pb 7/7 1.000500: 250000 cpu-clock:
	a8ae main.main (/tmp/pp/pipebench)
`
	p, err := profile.Parse(strings.NewReader(text), profile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := profile.WriteFileTop(&out, "modules", p, 5, ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "3 samples; in the kernel 66.7%\n") {
		t.Errorf("want 2 of 3 samples in the kernel, one of them in virtio_net:\n%s", out.String())
	}
}
