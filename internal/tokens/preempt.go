package tokens

import (
	"os"
	"strconv"
	"strings"
)

// AsyncPreemptOff says whether the GODEBUG environment variable turns the
// runtime's asynchronous preemption off (asyncpreemptoff set to a number
// other than 0; the last setting counts, as the runtime reads it).
//
// A Writer that waits for credits beside its reader (Alone false) must
// not run then: its sleep ends on a credit or on the runtime's preemption
// signal (syscalls.go), and with that signal off, a stop-the-world (a
// garbage collection) that has stopped the reader first waits for a
// credit that only the reader sends: a hang. The harnesses refuse such a
// run before it starts (pipebench.Prepare, herd.Prepare).
func AsyncPreemptOff() bool {
	off := false
	for _, kv := range strings.Split(os.Getenv("GODEBUG"), ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(kv), "asyncpreemptoff="); ok {
			if n, err := strconv.Atoi(v); err == nil {
				off = n != 0
			}
		}
	}
	return off
}
