package pipebench

import (
	"encoding/binary"
	"time"
	_ "unsafe" // for go:linkname

	"github.com/pipebench/pipebench/stats"
)

// In latency mode a token is 8 bytes: the CLOCK_MONOTONIC time at which it
// was written, little-endian. Pipe writes of 8 bytes are atomic and every
// read takes a multiple of 8 bytes, so a token is never torn. The clock is
// the runtime's (vDSO clock_gettime), the same in every process, so the
// writer process's stamps compare with the reader's clock.

// LatencyTokenSize is the size of a token in latency mode.
const LatencyTokenSize = 8

// latencyRange is the top of the latency histograms' range, in nanoseconds:
// one hour. A longer wait (a run may last a day) is counted at the top and
// in stats.Hist.Clamped, which the summary reports.
const latencyRange = uint64(time.Hour)

// workerReserve is how many distinct latencies (to three significant
// digits) a Driver's worker records before its sparse histogram allocates
// (1 KiB each); past it, it allocates each time their number doubles.
const workerReserve = 128

//go:linkname nanotime runtime.nanotime
func nanotime() int64

// stamp puts now into buf and returns it as a token.
func stamp(buf *[8]byte, now int64) []byte {
	binary.LittleEndian.PutUint64(buf[:], uint64(now))
	return buf[:]
}

// recordLatency records now minus the stamp of every token in b.
func (r *reader) recordLatency(now int64, b []byte) { recordStamps(&r.lat, now, b) }

// recordStamps records into h now minus the stamp of every token in b; a
// Driver's workers use it too. A stamp at or after now (which one clock
// should never give) is recorded as 0 ns: the summary warns of zeros.
func recordStamps(h *stats.Hist, now int64, b []byte) {
	for len(b) >= 8 {
		d := now - int64(binary.LittleEndian.Uint64(b))
		if d < 0 {
			d = 0
		}
		h.Record(uint64(d))
		b = b[8:]
	}
}
