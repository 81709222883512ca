package sweep

import (
	"slices"

	"github.com/pipebench/pipebench/stats"
)

// LoadRow is one point of an open-loop sweep laid out for reading: a
// backend at one rate (at one setting of pipes, writers and readers), each
// figure the median of its rounds' runs.
type LoadRow struct {
	Key
	// Runs is how many runs the figures rest on; Saturated how many of
	// them were past saturation (pipebench.Pacing.Saturated).
	Runs      int `json:"runs"`
	Saturated int `json:"saturated_runs"`
	// Offered, Sent and Received are tokens per second over the schedule's
	// window (pipebench.Pacing); Saturation the curve's measured
	// saturation when the rate is a fraction of it.
	Offered    float64 `json:"offered"`
	Sent       float64 `json:"sent"`
	Received   float64 `json:"received"`
	Saturation float64 `json:"saturation,omitempty"`
	// CPUPerEvent is the run's processes' CPU per event (ns), ReaderCPU
	// and WriterCPU their reader and writer threads'; MachineCPU every
	// CPU's busy time per event and Idle the idle share of the CPUs the
	// run may use (nil where /proc/stat was not read).
	CPUPerEvent float64  `json:"cpu_ns_per_event"`
	ReaderCPU   float64  `json:"reader_cpu_ns_per_event"`
	WriterCPU   float64  `json:"writer_cpu_ns_per_event"`
	MachineCPU  *float64 `json:"machine_cpu_ns_per_event,omitempty"`
	Idle        *float64 `json:"idle_share,omitempty"`
	// InvoluntaryPerSec is the run's processes' involuntary context
	// switches per second.
	InvoluntaryPerSec float64 `json:"involuntary_ctxsw_per_sec"`
	// Latency is from each token's scheduled send to its read (with
	// -latency; nil otherwise), ns.
	Latency *LoadLatency `json:"latency,omitempty"`
}

// LoadLatency is a load row's latency quantiles, ns.
type LoadLatency struct {
	P50  float64 `json:"p50_ns"`
	P90  float64 `json:"p90_ns"`
	P99  float64 `json:"p99_ns"`
	P999 float64 `json:"p999_ns"`
}

// LoadTable lays an open-loop sweep out: a row per point measured, in the
// grid's order (pipes, writers, readers, rate, backend); nil for a closed
// loop.
func LoadTable(r *Result) []LoadRow {
	if !r.Grid.Open() {
		return nil
	}
	byKey := map[Key][]Point{}
	for _, p := range r.Points {
		byKey[p.Key] = append(byKey[p.Key], p)
	}
	rows := []LoadRow{}
	for _, k := range r.Keys() {
		if ps := byKey[k]; len(ps) > 0 {
			rows = append(rows, loadRow(k, ps, r.SaturationOf(k)))
		}
	}
	return rows
}

// loadRow is the row of key k's runs ps.
func loadRow(k Key, ps []Point, saturation float64) LoadRow {
	row := LoadRow{Key: k, Runs: len(ps), Saturation: saturation}
	med := func(of func(Point) (float64, bool)) (float64, bool) {
		var xs []float64
		for _, p := range ps {
			if x, ok := of(p); ok {
				xs = append(xs, x)
			}
		}
		if len(xs) == 0 {
			return 0, false
		}
		return stats.Median(xs), true
	}
	m := func(of func(Point) float64) float64 {
		x, _ := med(func(p Point) (float64, bool) { return of(p), true })
		return x
	}
	opt := func(of func(Point) *float64) *float64 {
		x, ok := med(func(p Point) (float64, bool) {
			if v := of(p); v != nil {
				return *v, true
			}
			return 0, false
		})
		if !ok {
			return nil
		}
		return &x
	}
	paced := func(of func(Point) float64) float64 {
		x, _ := med(func(p Point) (float64, bool) {
			if p.Pacing == nil {
				return 0, false
			}
			return of(p), true
		})
		return x
	}
	row.Offered = paced(func(p Point) float64 { return p.Pacing.Rate })
	row.Sent = paced(func(p Point) float64 { return p.Pacing.SentRate })
	row.Received = paced(func(p Point) float64 { return p.Pacing.ReceivedRate })
	row.Saturated = len(slices.DeleteFunc(slices.Clone(ps), func(p Point) bool { return p.Pacing == nil || !p.Pacing.Saturated }))
	row.CPUPerEvent = m(Point.ProcessCPUPerEvent)
	row.ReaderCPU = m(func(p Point) float64 { return p.ThreadCPUPerEvent("reader") })
	row.WriterCPU = m(func(p Point) float64 { return p.ThreadCPUPerEvent("writer") })
	row.InvoluntaryPerSec = m(Point.InvoluntaryPerSec)
	row.MachineCPU = opt(func(p Point) *float64 { return p.MachineCPUPerEvent })
	row.Idle = opt(func(p Point) *float64 { return p.IdleShare })
	lat := func(q func(Point) float64) *float64 {
		return opt(func(p Point) *float64 {
			if p.Latency == nil {
				return nil
			}
			v := q(p)
			return &v
		})
	}
	if p50 := lat(func(p Point) float64 { return p.Latency.P50 }); p50 != nil {
		row.Latency = &LoadLatency{P50: *p50,
			P90:  *lat(func(p Point) float64 { return p.Latency.P90 }),
			P99:  *lat(func(p Point) float64 { return p.Latency.P99 }),
			P999: *lat(func(p Point) float64 { return p.Latency.P999 })}
	}
	return row
}
