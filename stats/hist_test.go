package stats

import (
	"encoding/binary"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// wide is the range of the histograms of these tests: all values they
// record fit, but for the clamping tests.
const wide = 1 << 50

func record(vs []uint64) *Hist {
	h := NewHist(wide)
	for _, v := range vs {
		h.Record(v)
	}
	return &h
}

func recordSparse(vs []uint64) *Hist {
	h := NewSparseHists(1, wide, 64)[0]
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

// withinResolution reports whether got is what Quantile may return for the
// exact quantile x: x itself below HistExact, else in [x, x(1+HistRelErr)).
func withinResolution(got, x float64) bool {
	if x < HistExact {
		return got == x
	}
	return got >= x && got < x*(1+HistRelErr)
}

func TestHistHand(t *testing.T) {
	h := record([]uint64{1024, 0, 1 << 40, 1, 2047, 2048, 1<<20 + 1})
	sum := uint64(1024 + 1<<40 + 1 + 2047 + 2048 + 1<<20 + 1)
	if h.Count() != 7 || h.Sum() != sum || h.Min() != 0 || h.Max() != 1<<40 || h.Zeros() != 1 || h.Clamped() != 0 {
		t.Errorf("count, sum, min, max, zeros, clamped = %d, %d, %d, %d, %d, %d; want 7, %d, 0, %d, 1, 0",
			h.Count(), h.Sum(), h.Min(), h.Max(), h.Zeros(), h.Clamped(), sum, uint64(1<<40))
	}
	if got, want := h.Mean(), float64(sum)/7; got != want {
		t.Errorf("Mean() = %g, want %g", got, want)
	}
	for _, tc := range []struct {
		q    float64
		want float64 // rank ceil(7q): the top of its bucket, clipped to max
	}{
		{0, 0},
		{0.1, 0},
		{0.2, 1},
		{0.4, 1024},
		{0.5, 2047}, // below HistExact: exact
		{0.6, 2049}, // 2048 and 2049 share a bucket
		{0.8, 1<<20 + 1023},
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
	for name, h := range map[string]Hist{"zero value": {}, "NewHist": NewHist(100), "NewSparseHists": NewSparseHists(1, 100, 16)[0]} {
		if h.Count() != 0 || h.Sum() != 0 || h.Min() != 0 || h.Max() != 0 || h.Mean() != 0 || h.Quantile(0.5) != 0 || h.Zeros() != 0 {
			t.Errorf("%s: count %d sum %d min %d max %d mean %g p50 %g zeros %d, want all 0",
				name, h.Count(), h.Sum(), h.Min(), h.Max(), h.Mean(), h.Quantile(0.5), h.Zeros())
		}
	}
	h := NewHist(100)
	h.Record(5) // an empty histogram's min of 0 must not stick
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

// TestHistQuantileError: three significant digits, for dense and sparse
// buckets alike; the old log-bucketed histogram was up to 12.5% high.
func TestHistQuantileError(t *testing.T) {
	for name, vs := range testData() {
		for kind, h := range map[string]*Hist{"dense": record(vs), "sparse": recordSparse(vs)} {
			for _, q := range quantiles {
				got, exact := h.Quantile(q), exactQuantile(q, vs)
				if !withinResolution(got, exact) {
					t.Errorf("%s %s: Quantile(%g) = %g, exact %g: want it exact below %d, else in [x, x(1+%g))",
						kind, name, q, got, exact, HistExact, HistRelErr)
				}
			}
		}
	}
}

// sameHist reports whether two histograms hold the same values.
func sameHist(a, b *Hist) bool {
	if a.Count() != b.Count() || a.Sum() != b.Sum() || a.Min() != b.Min() || a.Max() != b.Max() ||
		a.Zeros() != b.Zeros() || a.Clamped() != b.Clamped() {
		return false
	}
	for q := 0.0; q <= 1; q += 1.0 / 256 {
		if a.Quantile(q) != b.Quantile(q) {
			return false
		}
	}
	return true
}

func TestHistMerge(t *testing.T) {
	data := testData()
	before, during := data["latency"], data["ready"]
	whole := record(append(slices.Clone(before), during...))
	for _, into := range []func([]uint64) *Hist{record, recordSparse} {
		for _, from := range []func([]uint64) *Hist{record, recordSparse} {
			a, b := into(before), from(during)
			a.Merge(b)
			if !sameHist(a, whole) {
				t.Errorf("a.Merge(b) (%v into %v) differs from recording both", b.dense != nil, a.dense != nil)
			}
			var empty Hist
			c := into(during)
			c.Merge(&empty)
			if !sameHist(c, b) {
				t.Errorf("b.Merge(empty) differs from b")
			}
			e := into(nil)
			e.Merge(b)
			if !sameHist(e, b) {
				t.Errorf("empty.Merge(b) differs from b")
			}
		}
	}
}

// TestHistClamp: a value above the range is counted at its top, and in
// Clamped, never dropped; Merge does the same with values its source held.
func TestHistClamp(t *testing.T) {
	h := NewHist(1000)
	for _, v := range []uint64{5, 1000, 1001, 1 << 40} {
		h.Record(v)
	}
	if h.Count() != 4 || h.Clamped() != 2 || h.Max() != 1<<40 || h.Sum() != 5+1000+1001+1<<40 {
		t.Errorf("count %d clamped %d max %d sum %d", h.Count(), h.Clamped(), h.Max(), h.Sum())
	}
	if got := h.Quantile(0.5); got != 1000 {
		t.Errorf("p50 %g, want 1000", got)
	}
	if got := h.Quantile(0.75); got < 1000 || got > 1<<40 {
		t.Errorf("p75 %g: a clamped value must read at the top of the range or above", got)
	}
	small := NewHist(1000)
	big := NewSparseHists(1, 1<<30, 8)[0]
	big.Record(1 << 29)
	big.Record(7)
	small.Merge(&big)
	if small.Count() != 2 || small.Clamped() != 1 || small.Quantile(1) != 1<<29 || small.Quantile(0.5) != 7 {
		t.Errorf("merge of a wider range: count %d clamped %d p100 %g p50 %g", small.Count(), small.Clamped(), small.Quantile(1), small.Quantile(0.5))
	}
}

// TestRecordN: n values at once are n Records, in both kinds of
// histogram, clamped ones and zeros included; n = 0 records nothing.
func TestRecordN(t *testing.T) {
	counts := map[uint64]uint64{0: 3, 1: 1, 7: 1000, 2047: 2, 2048: 5, 1 << 20: 9, 1 << 40: 4}
	for _, mk := range []func() Hist{
		func() Hist { return NewHist(1 << 30) },
		func() Hist { return NewSparseHists(1, 1<<30, 8)[0] },
	} {
		one, many := mk(), mk()
		for _, v := range slices.Sorted(maps.Keys(counts)) {
			for range counts[v] {
				one.Record(v)
			}
			many.RecordN(v, counts[v])
			many.RecordN(v+1, 0)
		}
		if !sameHist(&one, &many) {
			t.Errorf("RecordN (dense %v): count %d sum %d min %d max %d zeros %d clamped %d; Record: %d %d %d %d %d %d",
				one.dense != nil, many.Count(), many.Sum(), many.Min(), many.Max(), many.Zeros(), many.Clamped(),
				one.Count(), one.Sum(), one.Min(), one.Max(), one.Zeros(), one.Clamped())
		}
		if many.Count() != 1024 || many.Zeros() != 3 || many.Clamped() != 4 || many.Quantile(0.5) != 7 {
			t.Errorf("RecordN: count %d zeros %d clamped %d p50 %g, want 1024, 3, 4, 7",
				many.Count(), many.Zeros(), many.Clamped(), many.Quantile(0.5))
		}
	}
}

func TestRecordAllocs(t *testing.T) {
	h := NewHist(wide)
	v := uint64(12345)
	if n := testing.AllocsPerRun(1000, func() { h.Record(v); v = (v*3 + 1) % wide }); n != 0 {
		t.Errorf("Record allocates %g times per call, want 0", n)
	}
	h = NewHist(100)
	if n := testing.AllocsPerRun(1000, func() { h.Record(1 << 40) }); n != 0 {
		t.Errorf("Record of a value out of range allocates %g times per call, want 0", n)
	}
	// A sparse histogram allocates nothing within its reserve, whatever the
	// counts, and its making allocates little.
	ss := NewSparseHists(2, wide, 256)
	i := uint64(0)
	if n := testing.AllocsPerRun(1000, func() { ss[1].Record(1000 + i%256); ss[1].Record(1 << 40); i++ }); n != 0 {
		t.Errorf("sparse Record within the reserve allocates %g times per call, want 0", n)
	}
	if n := testing.AllocsPerRun(10, func() { NewSparseHists(100, wide, 64) }); n > 100*4+100 {
		t.Errorf("100 sparse histograms take %g allocations", n)
	}
}

func TestRoundSig(t *testing.T) {
	for _, tc := range []struct{ x, want float64 }{
		{0, 0}, {1, 1}, {12, 12}, {999, 999}, {999.4, 999}, {999.6, 1000}, {1234, 1230}, {1235, 1240},
		{2049, 2050}, {123456789, 123000000}, {0.0012345, 0.00123}, {-1234, -1230},
	} {
		if got := RoundSig(tc.x, 3); got != tc.want {
			t.Errorf("RoundSig(%g, 3) = %g, want %g", tc.x, got, tc.want)
		}
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

		var sum, zeros, clamped uint64
		for _, v := range vs {
			sum += v
			if v == 0 {
				zeros++
			}
			if v > wide {
				clamped++
			}
		}
		if h.Count() != uint64(len(vs)) || h.Sum() != sum || h.Zeros() != zeros || h.Clamped() != clamped {
			t.Fatalf("count %d sum %d zeros %d clamped %d, want %d %d %d %d", h.Count(), h.Sum(), h.Zeros(), h.Clamped(), len(vs), sum, zeros, clamped)
		}
		if len(vs) == 0 {
			if h.Quantile(0.5) != 0 {
				t.Fatalf("empty Hist has a median")
			}
			return
		}
		if h.Min() != slices.Min(vs) || h.Max() != slices.Max(vs) {
			t.Fatalf("min %d max %d, want %d %d", h.Min(), h.Max(), slices.Min(vs), slices.Max(vs))
		}

		sorted := slices.Clone(vs)
		slices.Sort(sorted)
		var prev float64
		for _, q := range quantiles {
			got := h.Quantile(q)
			rank := max(int(math.Ceil(q*float64(len(vs)))), 1)
			exact := sorted[rank-1]
			if got < float64(h.Min()) || got > float64(h.Max()) || got < prev {
				t.Fatalf("Quantile(%g) = %g, want in [%d, %d] and >= %g", q, got, h.Min(), h.Max(), prev)
			}
			if exact <= wide && !withinResolution(got, float64(exact)) {
				t.Fatalf("Quantile(%g) = %g, exact %d: outside the resolution", q, got, exact)
			}
			prev = got
		}

		half := len(vs) / 2
		a, b := record(vs[:half]), recordSparse(vs[half:])
		if a.Merge(b); !sameHist(a, h) {
			t.Fatalf("Merge of halves differs from the whole")
		}
	})
}

// BenchmarkRecord: one readiness call's record in the reader's hot loop.
func BenchmarkRecord(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	vs := make([]uint64, 1024)
	for i := range vs {
		vs[i] = r.Uint64N(1000)
	}
	h := NewHist(1000)
	i := 0
	for b.Loop() {
		h.Record(vs[i&1023])
		i++
	}
	if h.Count() == 0 {
		b.Fatal("nothing recorded")
	}
}
