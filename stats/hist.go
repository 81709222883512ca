package stats

import (
	"math"
	"math/bits"
)

// Bucket layout (log-linear, as HdrHistogram): values below 2*subCount each
// have a bucket of their own; above that, every power of two [2^e, 2^(e+1))
// is split into subCount equal buckets of width 2^(e-subBits). A bucket's
// width is then at most 1/subCount of its lower bound, which bounds the
// relative error of any value reported for it.
const (
	subBits  = 3
	subCount = 1 << subBits // buckets per power of two

	// HistBuckets is the number of buckets; they cover all of uint64.
	HistBuckets = (64 - subBits + 1) << subBits

	// HistRelErr bounds the relative error of Hist.Quantile: for the exact
	// quantile x, x <= Quantile(q) < x*(1+HistRelErr). Values below 16 are
	// exact.
	HistRelErr = 1.0 / subCount
)

// Hist is a histogram of uint64 values (ready descriptors per readiness
// call, write-to-read latency in nanoseconds) in fixed log-linear buckets
// covering 0 to 2^64-1: values 0..15 exactly, larger values in 8 buckets per
// power of two, so that quantiles carry a relative error below HistRelErr
// (12.5%). It also keeps the exact count, sum, minimum and maximum.
//
// The zero value is an empty histogram ready to use. A Hist is plain data
// (about 4 KiB): Record allocates nothing and takes no lock, so a Hist is not
// safe for concurrent use; its owner records into it and hands out copies.
type Hist struct {
	count    uint64
	sum      uint64
	min, max uint64
	buckets  [HistBuckets]uint64
}

// bucketOf returns the index of the bucket holding v.
func bucketOf(v uint64) int {
	// s is the bucket width's log2: 0 for v < 2*subCount, else the bit
	// length of v minus subBits+1, which leaves v>>s in [subCount, 2*subCount).
	s := bits.Len64(v|subCount) - subBits - 1
	return s<<subBits + int(v>>uint(s))
}

// bucketBounds returns the smallest and largest value of bucket i, inclusive.
func bucketBounds(i int) (lo, hi uint64) {
	s := max(i>>subBits-1, 0)
	m := uint64(i - s<<subBits)
	// For the last bucket (m+1)<<s wraps to 0 and hi to 2^64-1, as it should.
	return m << uint(s), (m+1)<<uint(s) - 1
}

// Record adds v to the histogram.
func (h *Hist) Record(v uint64) {
	if v < h.min || h.count == 0 {
		h.min = v
	}
	h.max = max(h.max, v)
	h.count++
	h.sum += v
	h.buckets[bucketOf(v)]++
}

// Merge adds the values recorded in o to h.
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
	for i, c := range o.buckets {
		h.buckets[i] += c
	}
}

// Sub returns the values recorded in h since it was in state prev: the
// per-interval delta of a cumulative histogram. Count, Sum and the buckets
// are exact; Min and Max of the delta are not known exactly and are bounded
// instead by the delta's outermost buckets (clipped to h's Min and Max), so
// Min is at most, and Max at least, the true value, within HistRelErr.
// If prev is not an earlier state of h, buckets are clamped at zero and the
// result means nothing.
func (h *Hist) Sub(prev *Hist) Hist {
	var d Hist
	first, last := -1, -1
	for i, c := range h.buckets {
		if p := prev.buckets[i]; c > p {
			d.buckets[i] = c - p
			d.count += c - p
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if d.count == 0 {
		return Hist{}
	}
	d.sum = h.sum - prev.sum
	lo, _ := bucketBounds(first)
	_, hi := bucketBounds(last)
	d.min = max(lo, h.min)
	d.max = min(hi, h.max)
	return d
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
// at least 1; gonum's stat.Empirical). Quantile returns the inclusive upper
// bound of x's bucket, clipped to [Min, Max]: never below x, and below
// x*(1+HistRelErr). So Quantile(1) is Max, and values below 16 are exact.
func (h *Hist) Quantile(q float64) float64 {
	return float64(h.quantile(q))
}

func (h *Hist) quantile(q float64) uint64 {
	if h.count == 0 {
		return 0
	}
	if !(q > 0) { // also NaN
		q = 0
	}
	q = min(q, 1)
	rank := max(uint64(math.Ceil(q*float64(h.count))), 1)
	rank = min(rank, h.count)
	var seen uint64
	for i, c := range h.buckets {
		seen += c
		if seen >= rank {
			_, hi := bucketBounds(i)
			return max(min(hi, h.max), h.min)
		}
	}
	return h.max // unreachable while the buckets add up to count
}
