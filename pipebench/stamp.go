package pipebench

import (
	"encoding/binary"
	"time"

	"github.com/pipebench/pipebench/internal/tokens"
	"github.com/pipebench/pipebench/stats"
)

// In latency mode a token is 8 bytes: the time at which it was written
// (tokens.Stamp).

// LatencyTokenSize is the size of a token in latency mode.
const LatencyTokenSize = tokens.StampSize

// latencyRange is the top of the latency histograms' range, in nanoseconds:
// one hour. A longer wait (a run may last a day) is counted at the top and
// in stats.Hist.Clamped, which the summary reports.
const latencyRange = uint64(time.Hour)

// workerReserve is how many distinct latencies (to three significant
// digits) a Loop's worker records before its sparse histogram allocates
// (1 KiB each); past it, it allocates each time their number doubles.
const workerReserve = 128

// recordStamps records into h now minus the stamp of every token in b. A
// stamp at or after now (which one clock should never give) is recorded as
// 0 ns: the summary warns of zeros.
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
