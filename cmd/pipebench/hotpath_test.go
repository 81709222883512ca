package main

import (
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// hotFuncs are the functions a readiness call of the default table's
// backends runs, by symbol (package path after the module's): the
// reader's loop and its parts, each backend's Wait and what it calls
// every time, the credit and forward paths, and the writer thread's loops
// (an open-loop writer's per token: its tick; it reads the clock once a
// tick, outside it).
var hotFuncs = []string{
	"pipebench.(*reader).hot",
	"pipebench.(*reader).serve",
	"pipebench.(*reader).readPipe",
	"pipebench.(*reader).afterReads",
	"pipebench.(*forwarder).Forward",
	"pipebench.(*forwarder).forwardMany",
	"internal/tokens.SendCredit",
	"internal/tokens.(*Writer).Run",
	"internal/tokens.(*Writer).unbounded",
	"internal/tokens.(*Writer).tick",
	"internal/waitcall.Raw6.abi0",
	"epoll.(*backend).Wait",
	"poll.(*backend).Wait",
	"select.(*backend).Wait",
	"select.(*backend).args",
	"poll.(*set).ready",
	"select.(*set).ready",
	"uring.(*backend).Wait",
	"uring.(*backend).reap",
	"uring.(*ring).enterMin",
	"uring.(*ring).slot",
	"uring.(*epollBackend).Wait",
	"uring.(*epollBackend).submit",
	"uring.(*epollBackend).reap",
}

// hotForbidden matches, in go tool objdump's Go syntax, an instruction the
// hot path must not hold: a LOCK prefix, an XCHG with memory (locked
// without one: sync/atomic's Store on amd64), or a call into a channel
// operation, a lock or a clock read.
var hotForbidden = regexp.MustCompile(`\tLOCK |\tXCHG[BWLQ]? [^\t]*\(|CALL runtime\.(chansend|chanrecv|selectnb|selectgo|lock|nanotime|walltime)|CALL time\.Now|CALL sync\.\(\*(RW)?Mutex\)`)

// hotAllowed matches, at the start of an objdump line, the source
// position of the one locked instruction the hot path holds by design:
// io_uring's storeRelease (uring/release.go), inlined where the reader
// hands a ring's head or tail back to the kernel, sync/atomic's store
// because the language promises no weaker release (an XCHG on amd64).
var hotAllowed = regexp.MustCompile(`^\s*release\.go:\d+\s`)

// TestHotPathLocksNothing disassembles the command as a user builds it and
// checks that no function of the hot path holds a locked instruction, a
// channel operation or a clock read, but for storeRelease's (hotAllowed):
// what runs once a publication (the reader's share, every publishEvery
// calls) or once a run is kept out of these functions. An uncontended
// locked instruction costs tens of cycles a call; the check is on the
// instructions, not on a timing.
func TestHotPathLocksNothing(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skipf("the instruction patterns are amd64's; this is %s", runtime.GOARCH)
	}
	bin := buildCommand(t)
	const module = "github.com/pipebench/pipebench/"
	quoted := make([]string, len(hotFuncs))
	for i, f := range hotFuncs {
		quoted[i] = regexp.QuoteMeta(module + f)
	}
	out, err := exec.Command("go", "tool", "objdump", "-s", "^("+strings.Join(quoted, "|")+")$", bin).Output()
	if err != nil {
		t.Fatalf("go tool objdump: %v", err)
	}
	seen := map[string]int{}
	fn := ""
	for _, line := range strings.Split(string(out), "\n") {
		if name, ok := strings.CutPrefix(line, "TEXT "); ok {
			fn = strings.TrimPrefix(strings.Fields(name)[0], module)
			fn = strings.TrimSuffix(fn, "(SB)")
			continue
		}
		if fn == "" || strings.TrimSpace(line) == "" {
			continue
		}
		seen[fn]++
		if hotForbidden.MatchString(line) && !hotAllowed.MatchString(line) {
			t.Errorf("%s: %s", fn, strings.Join(strings.Fields(line), " "))
		}
	}
	for _, f := range hotFuncs {
		if seen[f] == 0 {
			t.Errorf("%s: not in the binary (renamed, or inlined everywhere?): update hotFuncs", f)
		}
	}
}
