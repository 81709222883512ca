package stats

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat"
)

func record(vs []uint64) *Hist {
	var h Hist
	for _, v := range vs {
		h.Record(v)
	}
	return &h
}

// exactQuantile is gonum's Empirical quantile of vs, the definition
// Hist.Quantile approximates.
func exactQuantile(q float64, vs []uint64) float64 {
	xs := make([]float64, len(vs))
	for i, v := range vs {
		xs[i] = float64(v)
	}
	slices.Sort(xs)
	return stat.Quantile(q, stat.Empirical, xs, nil)
}

var quantiles = []float64{0, 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 1}

func TestBucketOf(t *testing.T) {
	for _, tc := range []struct {
		v      uint64
		lo, hi uint64
	}{
		{0, 0, 0},
		{1, 1, 1},
		{15, 15, 15},
		{16, 16, 17},
		{17, 16, 17},
		{18, 18, 19},
		{31, 30, 31},
		{32, 32, 35},
		{1023, 960, 1023},
		{1024, 1024, 1151},
		{65536, 65536, 73727},
		{1 << 40, 1 << 40, 1<<40 + 1<<37 - 1},
		{math.MaxUint64, 15 << 60, math.MaxUint64},
	} {
		lo, hi := bucketBounds(bucketOf(tc.v))
		if lo != tc.lo || hi != tc.hi {
			t.Errorf("bucket of %d = [%d, %d], want [%d, %d]", tc.v, lo, hi, tc.lo, tc.hi)
		}
	}
}

// The buckets tile 0..2^64-1 without gap or overlap, and each is narrower
// than HistRelErr of its lower bound, which is what bounds Quantile's error.
func TestBucketsTile(t *testing.T) {
	var next uint64
	for i := range HistBuckets {
		lo, hi := bucketBounds(i)
		if lo != next || hi < lo {
			t.Fatalf("bucket %d = [%d, %d], want it to start at %d", i, lo, hi, next)
		}
		if bucketOf(lo) != i || bucketOf(hi) != i {
			t.Fatalf("bucket %d = [%d, %d], but bucketOf gives %d and %d", i, lo, hi, bucketOf(lo), bucketOf(hi))
		}
		if lo < 16 && hi != lo {
			t.Errorf("bucket %d = [%d, %d], want values below 16 exact", i, lo, hi)
		}
		if (hi-lo)*subCount >= lo && hi != lo { // width-1 < lo*HistRelErr, in integers
			t.Errorf("bucket %d = [%d, %d] is wider than %g of %d", i, lo, hi, HistRelErr, lo)
		}
		next = hi + 1
	}
	if next != 0 { // wrapped past 2^64-1
		t.Errorf("last bucket ends at %d, want 2^64-1", next-1)
	}
}

func TestHistHand(t *testing.T) {
	h := record([]uint64{1024, 0, 1 << 40, 1, 1023})
	if h.Count() != 5 || h.Sum() != 1<<40+2048 || h.Min() != 0 || h.Max() != 1<<40 {
		t.Errorf("count, sum, min, max = %d, %d, %d, %d; want 5, %d, 0, %d",
			h.Count(), h.Sum(), h.Min(), h.Max(), uint64(1<<40+2048), uint64(1<<40))
	}
	if got, want := h.Mean(), float64(1<<40+2048)/5; got != want {
		t.Errorf("Mean() = %g, want %g", got, want)
	}
	for _, tc := range []struct {
		q    float64
		want float64 // rank ceil(5q): the upper bound of its bucket, clipped to max
	}{
		{0, 0},
		{0.1, 0},
		{0.3, 1},
		{0.5, 1023},
		{0.7, 1151},
		{0.9, 1 << 40},
		{1, 1 << 40},
		{-1, 0},
		{2, 1 << 40},
		{math.NaN(), 0},
	} {
		if got := h.Quantile(tc.q); got != tc.want {
			t.Errorf("Quantile(%g) = %g, want %g", tc.q, got, tc.want)
		}
	}
}

func TestHistEmpty(t *testing.T) {
	var h Hist
	if h.Count() != 0 || h.Sum() != 0 || h.Min() != 0 || h.Max() != 0 || h.Mean() != 0 || h.Quantile(0.5) != 0 {
		t.Errorf("empty Hist: count %d sum %d min %d max %d mean %g p50 %g, want all 0",
			h.Count(), h.Sum(), h.Min(), h.Max(), h.Mean(), h.Quantile(0.5))
	}
	h.Record(5) // the zero value's min of 0 must not stick
	if h.Min() != 5 || h.Max() != 5 || h.Quantile(0) != 5 {
		t.Errorf("after Record(5): min %d max %d p0 %g, want 5", h.Min(), h.Max(), h.Quantile(0))
	}
}

func testData() map[string][]uint64 {
	r := rand.New(rand.NewPCG(1, 2))
	data := map[string][]uint64{
		"hand":     {0, 1, 1023, 1024, 1 << 40},
		"constant": slices.Repeat([]uint64{777}, 100),
	}
	var small, ready, latency, wide []uint64
	for range 5000 {
		small = append(small, r.Uint64N(20))
		ready = append(ready, r.Uint64N(65537))
		// log-uniform from 1 µs to 1 s, in ns
		latency = append(latency, uint64(math.Pow(10, 3+6*r.Float64())))
		wide = append(wide, r.Uint64N(1<<41))
	}
	data["small"], data["ready"], data["latency"], data["wide"] = small, ready, latency, wide
	return data
}

func TestHistQuantileError(t *testing.T) {
	for name, vs := range testData() {
		h := record(vs)
		for _, q := range quantiles {
			got, exact := h.Quantile(q), exactQuantile(q, vs)
			if got < exact || got > exact*(1+HistRelErr) || (exact < 16 && got != exact) {
				t.Errorf("%s: Quantile(%g) = %g, exact %g: outside [x, x(1+%g))", name, q, got, exact, HistRelErr)
			}
		}
	}
}

func TestHistSubMerge(t *testing.T) {
	data := testData()
	before, during := data["latency"], data["ready"]
	a := record(before)
	b := record(during)
	whole := *a
	for _, v := range during {
		whole.Record(v)
	}

	merged := *a
	merged.Merge(b)
	if merged != whole {
		t.Errorf("a.Merge(b) differs from recording both")
	}
	var empty Hist
	intoEmpty := empty
	intoEmpty.Merge(b)
	if intoEmpty != *b {
		t.Errorf("empty.Merge(b) differs from b")
	}
	withEmpty := *b
	withEmpty.Merge(&empty)
	if withEmpty != *b {
		t.Errorf("b.Merge(empty) differs from b")
	}

	d := whole.Sub(a)
	if d.Count() != b.Count() || d.Sum() != b.Sum() || d.buckets != b.buckets {
		t.Errorf("Sub: count %d sum %d, want %d %d (buckets equal: %v)",
			d.Count(), d.Sum(), b.Count(), b.Sum(), d.buckets == b.buckets)
	}
	// The delta's min and max are bounds from its buckets.
	if d.Min() > b.Min() || bucketOf(d.Min()) != bucketOf(b.Min()) ||
		d.Max() < b.Max() || bucketOf(d.Max()) != bucketOf(b.Max()) {
		t.Errorf("Sub: min %d max %d, want bounds in the buckets of %d and %d", d.Min(), d.Max(), b.Min(), b.Max())
	}
	for _, q := range quantiles {
		got, exact := d.Quantile(q), exactQuantile(q, during)
		if got < exact || got > exact*(1+HistRelErr) {
			t.Errorf("Sub: Quantile(%g) = %g, exact %g", q, got, exact)
		}
	}
	if s := whole.Sub(&empty); s != whole {
		t.Errorf("whole.Sub(empty) differs from whole")
	}
	if s := whole.Sub(&whole); s != empty {
		t.Errorf("whole.Sub(whole) is not empty: count %d", s.Count())
	}
}

func TestRecordAllocs(t *testing.T) {
	var h Hist
	v := uint64(12345)
	if n := testing.AllocsPerRun(1000, func() { h.Record(v); v = v*3 + 1 }); n != 0 {
		t.Errorf("Record allocates %g times per call, want 0", n)
	}
}

// FuzzHist reads values as 9-byte groups: a shift, then 8 bytes of value
// shifted right by it, so that small and large magnitudes are both common.
func FuzzHist(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{64, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 60, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Add([]byte{54, 1, 2, 3, 4, 5, 6, 7, 8, 23, 9, 9, 9, 9, 9, 9, 9, 9, 0, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		var vs []uint64
		for len(data) > 0 {
			var buf [9]byte
			n := copy(buf[:], data)
			data = data[n:]
			vs = append(vs, binary.LittleEndian.Uint64(buf[1:])>>(buf[0]%65))
		}
		h := record(vs)

		var sum uint64
		for _, v := range vs {
			sum += v
		}
		if h.Count() != uint64(len(vs)) || h.Sum() != sum {
			t.Fatalf("count %d sum %d, want %d %d", h.Count(), h.Sum(), len(vs), sum)
		}
		if len(vs) == 0 {
			if *h != (Hist{}) || h.Quantile(0.5) != 0 {
				t.Fatalf("empty Hist is not zero")
			}
			return
		}
		if h.Min() != slices.Min(vs) || h.Max() != slices.Max(vs) {
			t.Fatalf("min %d max %d, want %d %d", h.Min(), h.Max(), slices.Min(vs), slices.Max(vs))
		}

		sorted := slices.Clone(vs)
		slices.Sort(sorted)
		var prev uint64
		for _, q := range quantiles {
			got := h.quantile(q)
			rank := max(int(math.Ceil(q*float64(len(vs)))), 1)
			exact := sorted[rank-1]
			if got < h.Min() || got > h.Max() || got < prev {
				t.Fatalf("quantile(%g) = %d, want in [%d, %d] and >= %d", q, got, h.Min(), h.Max(), prev)
			}
			if got < exact || (exact >= 16 && (got-exact)*subCount >= exact) || (exact < 16 && got != exact) {
				t.Fatalf("quantile(%g) = %d, exact %d: outside [x, x(1+%g))", q, got, exact, HistRelErr)
			}
			if f := h.Quantile(q); f != float64(got) {
				t.Fatalf("Quantile(%g) = %g, quantile %d", q, f, got)
			}
			prev = got
		}

		half := len(vs) / 2
		a, b := record(vs[:half]), record(vs[half:])
		if d := h.Sub(a); d.Count() != b.Count() || d.Sum() != b.Sum() || d.buckets != b.buckets ||
			d.Min() > b.Min() || d.Max() < b.Max() {
			t.Fatalf("Sub: count %d sum %d min %d max %d, want %d %d <=%d >=%d",
				d.Count(), d.Sum(), d.Min(), d.Max(), b.Count(), b.Sum(), b.Min(), b.Max())
		}
		if a.Merge(b); *a != *h { // a is consumed here
			t.Fatalf("Merge of halves differs from the whole")
		}
	})
}

func BenchmarkRecord(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	vs := make([]uint64, 1024)
	for i := range vs {
		vs[i] = r.Uint64() >> r.UintN(64)
	}
	var h Hist
	i := 0
	for b.Loop() {
		h.Record(vs[i&1023])
		i++
	}
	if h.Count() == 0 {
		b.Fatal("nothing recorded")
	}
}
