package stats

import (
	"math"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// A Hist's buckets are HdrHistogram's with three significant decimal
// digits: every value below HistExact has a bucket of its own; above that,
// each power of two [2^k, 2^(k+1)) is split into 1024 equal buckets, so a
// bucket is narrower than HistRelErr of its lower bound.
const (
	// HistDigits is the precision of a Hist in significant decimal digits:
	// quantiles are worth printing to this many digits and no more.
	HistDigits = 3

	// HistExact is the smallest value that shares its bucket: values below
	// it are held exactly.
	HistExact = 2048

	// HistRelErr bounds the relative error of Hist.Quantile: for the exact
	// quantile x, x <= Quantile(q) < x*(1+HistRelErr), and Quantile(q) = x
	// for x below HistExact.
	HistRelErr = 1.0 / 1024
)

// Hist is a histogram of uint64 values (ready descriptors per readiness
// call, write-to-read latency in nanoseconds): an HdrHistogram with
// HistDigits significant digits over 0..Highest, plus the exact count, sum,
// minimum, maximum and number of zeros. A value above Highest is recorded
// in the top bucket, as Highest, and counted in Clamped: never dropped.
//
// Make one with NewHist (dense buckets: a fixed array of about 8 KiB per
// power of two of the range, for a hot loop) or NewSparseHists (buckets
// allocated as values arrive, for the many small histograms of a Loop's
// goroutines). The zero value is an empty histogram that can be read and
// merged from, not recorded or merged into. A copy of a Hist shares its
// buckets: hand a Hist over, do not record into two copies. Record takes no
// lock, so a Hist is not safe for concurrent use.
type Hist struct {
	dense   *hdr.Histogram
	sparse  *hdr.PackedHistogram
	highest uint64

	count, sum, min, max uint64
	zeros, clamped       uint64
}

// NewHist returns an empty histogram of values 0..highest with dense
// buckets: Record allocates nothing.
func NewHist(highest uint64) Hist {
	highest = clampHighest(highest)
	return Hist{dense: hdr.New(1, int64(highest), HistDigits), highest: highest}
}

// NewSparseHists returns n empty histograms of values 0..highest whose
// buckets take memory only as values arrive in them: for the many
// histograms of a Loop's goroutines. Each has room for reserve distinct
// buckets (values closer than HistRelErr share one; below HistExact, one
// each) from the start, so that Record allocates nothing until more than
// reserve have been recorded, and then only when their number doubles.
func NewSparseHists(n int, highest uint64, reserve int) []Hist {
	highest = clampHighest(highest)
	reserve = min(max(reserve, 1), HistExact, int(min(highest, math.MaxInt32))+1)
	// A template with reserve buckets and counts 4 bytes wide: Clone copies
	// it in 4 allocations, and Reset keeps the room and the width.
	tmpl := hdr.NewPacked(1, int64(highest), HistDigits)
	for v := range reserve {
		tmpl.RecordValue(int64(v))
	}
	tmpl.RecordValues(0, 1<<16)
	hs := make([]Hist, n)
	for i := range hs {
		p := tmpl.Clone()
		p.Reset()
		hs[i] = Hist{sparse: p, highest: highest}
	}
	return hs
}

// clampHighest keeps a range within what HdrHistogram's int64 values hold.
func clampHighest(highest uint64) uint64 {
	return min(max(highest, 1), math.MaxInt64/2)
}

// Record adds v to the histogram.
func (h *Hist) Record(v uint64) { h.RecordN(v, 1) }

// RecordN adds n values v to the histogram, as n Records of v would: for a
// hot loop that counts its values in a plain array and hands them over
// once.
func (h *Hist) RecordN(v, n uint64) {
	if n == 0 {
		return
	}
	if v < h.min || h.count == 0 {
		h.min = v
	}
	h.max = max(h.max, v)
	h.count += n
	h.sum += v * n
	if v == 0 {
		h.zeros += n
	}
	if v > h.highest {
		v = h.highest
		h.clamped += n
	}
	// Cannot fail: v is in range and the count far from 2^63.
	if h.dense != nil {
		h.dense.RecordValues(int64(v), int64(n))
	} else {
		h.sparse.RecordValues(int64(v), int64(n))
	}
}

// Merge adds the values recorded in o to h. Values of o above h's range are
// counted at h's top and in Clamped, as Record does. h must have been made by
// NewHist or NewSparseHist.
func (h *Hist) Merge(o *Hist) {
	if o.count == 0 {
		return
	}
	if h.count == 0 || o.min < h.min {
		h.min = o.min
	}
	h.max = max(h.max, o.max)
	h.count += o.count
	h.sum += o.sum
	h.zeros += o.zeros
	h.clamped += o.clamped
	var dropped int64
	switch {
	case h.dense != nil && o.dense != nil:
		dropped = h.dense.Merge(o.dense)
	case h.dense != nil:
		dropped = o.sparse.MergeInto(h.dense)
	case o.dense != nil:
		dropped = h.sparse.MergeFrom(o.dense)
	default:
		dropped = h.sparse.Merge(o.sparse)
	}
	if dropped > 0 {
		if h.dense != nil {
			h.dense.RecordValues(int64(h.highest), dropped)
		} else {
			h.sparse.RecordValues(int64(h.highest), dropped)
		}
		h.clamped += uint64(dropped)
	}
}

// Count returns the number of values recorded.
func (h *Hist) Count() uint64 { return h.count }

// Sum returns the sum of the values recorded, modulo 2^64 (2^24 values of
// 2^40 fit).
func (h *Hist) Sum() uint64 { return h.sum }

// Min returns the smallest value recorded, 0 if none.
func (h *Hist) Min() uint64 { return h.min }

// Max returns the largest value recorded, 0 if none.
func (h *Hist) Max() uint64 { return h.max }

// Zeros returns how many of the values recorded were 0.
func (h *Hist) Zeros() uint64 { return h.zeros }

// Highest returns the top of the histogram's range.
func (h *Hist) Highest() uint64 { return h.highest }

// Clamped returns how many values above Highest were recorded as Highest.
// Count, Sum, Min and Max hold them exactly.
func (h *Hist) Clamped() uint64 { return h.clamped }

// Mean returns Sum / Count, 0 if no value was recorded.
func (h *Hist) Mean() float64 {
	if h.count == 0 {
		return 0
	}
	return float64(h.sum) / float64(h.count)
}

// Quantile returns the q-quantile (0 <= q <= 1, clamped otherwise) of the
// values recorded, 0 if none. The exact q-quantile x is the smallest recorded
// value with at least q*Count values at or below it (the rank ceil(q*Count),
// at least 1; gonum's stat.Empirical). Quantile returns the largest value of
// x's bucket, clipped to [Min, Max]: never below x, below x*(1+HistRelErr),
// and x itself below HistExact. Quantile(1) is Max. A quantile among values
// above Highest (see Clamped) reads as Highest.
func (h *Hist) Quantile(q float64) float64 {
	if h.count == 0 {
		return 0
	}
	if !(q > 0) { // also NaN
		q = 0
	}
	q = min(q, 1)
	rank := max(uint64(math.Ceil(q*float64(h.count))), 1)
	if rank >= h.count {
		return float64(h.max)
	}
	// HdrHistogram takes a percentile p and ranks it floor(p/100*count + 0.5):
	// asking for rank-0.25 lands on rank however the division rounds.
	p := 100 * (float64(rank) - 0.25) / float64(h.count)
	var v int64
	if h.dense != nil {
		v = h.dense.ValueAtPercentile(p)
	} else {
		v = h.sparse.ValueAtPercentile(p)
	}
	return float64(max(min(uint64(v), h.max), h.min))
}

// RoundSig rounds x to digits significant decimal digits: how a quantile of
// a Hist is worth printing (digits = HistDigits).
func RoundSig(x float64, digits int) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) || digits < 1 {
		return x
	}
	// Scale by a power of ten that is an exact integer either way.
	e := digits - int(math.Ceil(math.Log10(math.Abs(x))))
	if e >= 0 {
		p := math.Pow10(e)
		return math.Round(x*p) / p
	}
	p := math.Pow10(-e)
	return math.Round(x/p) * p
}
