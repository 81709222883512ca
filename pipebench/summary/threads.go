package summary

import (
	"math"

	"github.com/pipebench/pipebench/pipebench"
	"github.com/pipebench/pipebench/stats"
)

// Readers are the per-reader figures of a run with several readers or
// writers (pipebench.Config.Readers, Writers), over the same intervals as
// the evts/sec summary (after warm-up): perf bench epoll wait's per-thread
// ops/sec and their mean.
type Readers struct {
	// EventsPerSec is each reader's events over those intervals' seconds.
	EventsPerSec []float64 `json:"evts_per_sec"`
	// Mean is their mean; RelStdDev their sample standard deviation
	// (divisor N-1) over the mean, how unevenly the readers were served;
	// RelStdErr that over the square root of N, the standard deviation of
	// the mean, which is what perf bench prints as "+- x%" beside its
	// average. Both 0 with one reader.
	Mean      float64 `json:"mean"`
	RelStdDev float64 `json:"rel_std_dev"`
	RelStdErr float64 `json:"rel_std_err"`
	// Total is every reader's events over those seconds: their sum.
	Total float64 `json:"total"`
}

// readers computes the per-reader figures over ivs, or nil when the run
// has one reader and one writer.
func readers(res *pipebench.Result, ivs []pipebench.Interval) *Readers {
	if len(res.Readers) == 0 {
		return nil
	}
	events := make([]uint64, len(res.Readers))
	var secs float64
	for _, iv := range ivs {
		for k := range min(len(events), len(iv.Readers)) {
			events[k] += iv.Readers[k]
		}
		secs += iv.Seconds
	}
	r := &Readers{EventsPerSec: make([]float64, len(events))}
	for k, e := range events {
		r.EventsPerSec[k] = stats.Rate(e, secs)
		r.Total += r.EventsPerSec[k]
	}
	n := float64(len(events))
	r.Mean = r.Total / n
	if len(events) > 1 && r.Mean > 0 {
		var ss float64
		for _, x := range r.EventsPerSec {
			ss += (x - r.Mean) * (x - r.Mean)
		}
		sd := math.Sqrt(ss / (n - 1))
		r.RelStdDev = sd / r.Mean
		r.RelStdErr = r.RelStdDev / math.Sqrt(n)
	}
	return r
}
