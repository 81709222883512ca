package compare

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/pipebench/pipebench/experiment/record"
	"github.com/pipebench/pipebench/experiment/report"
	"github.com/pipebench/pipebench/experiment/sweep"
	"github.com/pipebench/pipebench/pipebench"
	cmpstat "github.com/pipebench/pipebench/stats/compare"
)

// A Metric is one figure that pipebench compare compares: its name, which
// way it improves, and its value in each repetition.
type Metric struct {
	Name string
	Dir  cmpstat.Direction
}

// Sampled is one configuration of a record as compare sees it: a label
// such as "-b epoll -n 1000 -l 10", a key that matches the same
// configuration in another record, and every metric's repetitions.
type Sampled struct {
	Key   string
	Label string
	// Values holds a metric's value in each repetition, by metric name;
	// Order lists the metric names in the order they are shown.
	Values map[string][]float64
	Order  []Metric
	// Vars are the configuration's settings by flag ("b": "epoll"), for
	// -by.
	Vars map[string]string
	// LeftOut counts repetitions that failed or were interrupted and so
	// are not samples.
	LeftOut int
	// Open says the configuration ran open loop (-rate): its primary
	// figure is a cost, not evts/sec, which the offered load sets.
	Open bool
}

// add records one repetition's value of metric m.
func (s *Sampled) add(m Metric, v float64) {
	if s.Values == nil {
		s.Values = map[string][]float64{}
	}
	if _, ok := s.Values[m.Name]; !ok {
		s.Order = append(s.Order, m)
	}
	s.Values[m.Name] = append(s.Values[m.Name], v)
}

// Loaded is a record read back for comparison.
type Loaded struct {
	Path string
	record.Head
	Configs []*Sampled
	// Others and Steal are the most of a CPU that other programs and the
	// hypervisor took during one of its runs' windows (what the machine's
	// CPUs did beyond the runs' own processes); 0 in a record made before
	// pipebench measured it.
	Others, Steal float64
	// Sweep is a sweep record's grid and points (each point's key, round
	// and evts/sec), whose crossings compare recomputes (crossings.go);
	// nil for the other commands.
	Sweep *sweep.Result
}

// others notes a run's share of a CPU used by others and stolen.
func (l *Loaded) others(others, steal *float64) {
	if others != nil {
		l.Others = max(l.Others, *others)
	}
	if steal != nil {
		l.Steal = max(l.Steal, *steal)
	}
}

// A RecordError is a file that is not a record pipebench can cmpstat.
type RecordError struct {
	Path string
	Why  string
}

func (e *RecordError) Error() string { return e.Path + ": " + e.Why }

// ReadRecord reads the record at path and the repetitions of every
// configuration in it.
func ReadRecord(path string) (*Loaded, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, &RecordError{path, fmt.Sprintf("cannot read it: %v", errors.Unwrap(err))}
	}
	return ParseRecord(path, b)
}

// ParseRecord is ReadRecord of b, read from path.
func ParseRecord(path string, b []byte) (*Loaded, error) {
	var head struct {
		record.Head
		Runs        []runJSON     `json:"runs"`
		Points      []pointJSON   `json:"points"`
		Sides       []herdJSON    `json:"sides"`
		Repetitions []timeoutJSON `json:"repetitions"`
		Grid        sweep.Grid    `json:"grid"`
		Refine      *sweep.Refine `json:"refine"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) || strings.Contains(err.Error(), "unexpected end of JSON input") {
			return nil, &RecordError{path, fmt.Sprintf("not JSON, or cut short: %v (want a file written by pipebench -format json)", err)}
		}
		return nil, &RecordError{path, fmt.Sprintf("not a pipebench record: %v", err)}
	}
	if why := head.Unreadable("compare"); why != "" {
		return nil, &RecordError{path, why}
	}
	l := &Loaded{Path: path, Head: head.Head}
	switch head.Command {
	case "run":
		if len(head.Runs) == 0 {
			return nil, &RecordError{path, "a run record with no run in it"}
		}
		l.Configs = []*Sampled{runsSampled(&head.Head, head.Runs)}
		for i := range head.Runs {
			w := head.Runs[i].runWindow
			res := pipebench.Result{Elapsed: w.Elapsed, Process: w.Process, WriterProcess: w.WriterProcess, Machine: w.Machine}
			if others, steal, ok := res.Others(); ok {
				l.others(&others, &steal)
			}
		}
	case "sweep":
		l.Sweep = sweepOf(head.Grid, head.Refine, head.Points)
		l.Configs = pointsSampled(head.Points, l.Sweep.Keys())
		for _, p := range head.Points {
			l.others(p.Others, p.Steal)
		}
		if len(l.Configs) == 0 {
			return nil, &RecordError{path, "a sweep record with no measured point"}
		}
	case "herd":
		l.Configs = herdSampled(head.Sides, fmt.Sprintf("-waiters %s -mode %s -n %s -l %s",
			head.Flags["waiters"], head.Flags["mode"], head.Flags["n"], head.Flags["l"]))
	case "timeout":
		l.Configs = timeoutSampled(head.Repetitions)
	default:
		return nil, &RecordError{path, fmt.Sprintf("a record of pipebench %s: compare reads the records of runs, sweeps, herds and timeouts", head.Command)}
	}
	if len(l.Configs) == 0 {
		return nil, &RecordError{path, fmt.Sprintf("a record of pipebench %s with nothing measured in it", head.Command)}
	}
	return l, nil
}

// figuresJSON are the figures a run's summary and a sweep's point both
// hold, under the same names.
type figuresJSON struct {
	TokensPerSec     float64 `json:"tokens_per_sec"`
	SamplesPerCall   float64 `json:"samples_per_call"`
	SamplesApply     bool    `json:"samples_per_call_applies"`
	SyscallsPerToken float64 `json:"syscalls_per_token"`
	CPUPerToken      float64 `json:"cpu_ns_per_token"`
	Costs            []struct {
		Who           string  `json:"who"`
		CPU           float64 `json:"cpu_ns_per_event"`
		Voluntary     float64 `json:"voluntary_ctxsw_per_event"`
		Involuntary   float64 `json:"involuntary_ctxsw_per_event"`
		VoluntaryPS   float64 `json:"voluntary_ctxsw_per_sec"`
		InvoluntaryPS float64 `json:"involuntary_ctxsw_per_sec"`
	} `json:"costs"`
	Latency *struct {
		P50 float64 `json:"p50_ns"`
		P99 float64 `json:"p99_ns"`
	} `json:"latency"`

	// HaltsPerEvent is a run's; nil where it did not count them (a
	// sweep's point, an older record, a machine without cpuidle).
	HaltsPerEvent *float64 `json:"halts_per_event"`

	// IdleShare and MachineCPUPerEvent are the machine's side, from
	// /proc/stat; nil in older records.
	IdleShare          *float64 `json:"idle_share"`
	MachineCPUPerEvent *float64 `json:"machine_cpu_ns_per_event"`
}

type runJSON struct {
	LeftOut string `json:"left_out"`
	// Pacing is an open-loop run's (-rate); nil for a closed loop.
	Pacing *struct{} `json:"pacing"`
	runWindow
	Summary struct {
		EventsPerSec struct {
			Median float64 `json:"median"`
		} `json:"evts_per_sec"`
		figuresJSON
	} `json:"summary"`
}

// runWindow is what a run's record says of its window's CPU time: its
// length, its own processes' usage and the machine's.
type runWindow struct {
	Elapsed       time.Duration        `json:"elapsed_ns"`
	Process       pipebench.Usage      `json:"process"`
	WriterProcess pipebench.Usage      `json:"writer_process"`
	Machine       pipebench.MachineCPU `json:"machine_cpu"`
}

type pointJSON struct {
	Backend      string    `json:"backend"`
	Pipes        int       `json:"pipes"`
	InFlight     int       `json:"in_flight"`
	Writers      int       `json:"writers"`
	Readers      int       `json:"readers"`
	Round        int       `json:"round"`
	EventsPerSec float64   `json:"evts_per_sec"`
	Others       *float64  `json:"others_cpu"`
	Steal        *float64  `json:"steal_cpu"`
	Rate         float64   `json:"rate"`
	OfSaturation bool      `json:"rate_of_saturation"`
	Pacing       *struct{} `json:"pacing"`
	figuresJSON
}

// The metrics, in the order compare shows them.
var (
	mEvents  = Metric{"evts/sec", cmpstat.HigherIsBetter}
	mTokens  = Metric{"tokens/sec", cmpstat.HigherIsBetter}
	mSamples = Metric{"samples/call", cmpstat.Neutral}
	mSys     = Metric{"syscalls/token", cmpstat.LowerIsBetter}
	mCPU     = Metric{"cpu ns/token", cmpstat.LowerIsBetter}
	mP50     = Metric{"latency p50 ns", cmpstat.LowerIsBetter}
	mP99     = Metric{"latency p99 ns", cmpstat.LowerIsBetter}

	// Idle-state entries per event (a run's halts_per_event) are where
	// the scheduler put the reader and writer (one CPU or two), not a cost
	// of the program: neither way is better.
	mHalts = Metric{"idle entries/evt", cmpstat.Neutral}

	// At a fixed offered load (-rate) the work is given, so what it costs
	// is the question: how idle the run's CPUs stayed (more is better),
	// and every CPU's busy time per event.
	mIdle    = Metric{"idle % of run's CPUs", cmpstat.HigherIsBetter}
	mMachine = Metric{"machine cpu ns/evt", cmpstat.LowerIsBetter}
)

// addFigures adds one repetition's figures to s; open says the run was
// open loop (-rate), whose cost figures per second are compared too.
func (s *Sampled) addFigures(evts float64, f *figuresJSON, open bool) {
	s.add(mEvents, evts)
	s.add(mTokens, f.TokensPerSec)
	if f.SamplesApply {
		s.add(mSamples, f.SamplesPerCall)
	}
	s.add(mSys, f.SyscallsPerToken)
	s.add(mCPU, f.CPUPerToken)
	if f.HaltsPerEvent != nil {
		s.add(mHalts, *f.HaltsPerEvent)
	}
	for _, c := range f.Costs {
		s.add(Metric{"cpu ns/evt " + report.RowName(c.Who), cmpstat.LowerIsBetter}, c.CPU)
	}
	// Context switches per event, as the run's own text says them.
	for _, c := range f.Costs {
		s.add(Metric{"vol cs/evt " + report.RowName(c.Who), cmpstat.LowerIsBetter}, c.Voluntary)
		s.add(Metric{"invol cs/evt " + report.RowName(c.Who), cmpstat.LowerIsBetter}, c.Involuntary)
	}
	if open {
		s.Open = true
		s.addOpen(f)
	}
	if f.Latency != nil {
		s.add(mP50, f.Latency.P50)
		s.add(mP99, f.Latency.P99)
	}
}

// addOpen adds an open-loop repetition's figures of cost at its rate: the
// idle share of the run's CPUs, every CPU's busy time per event, and the
// context switches per second (seed 002's unit).
func (s *Sampled) addOpen(f *figuresJSON) {
	if f.IdleShare != nil {
		s.add(mIdle, 100**f.IdleShare)
	}
	if f.MachineCPUPerEvent != nil {
		s.add(mMachine, *f.MachineCPUPerEvent)
	}
	for _, c := range f.Costs {
		s.add(Metric{"vol cs/s " + report.RowName(c.Who), cmpstat.LowerIsBetter}, c.VoluntaryPS)
		s.add(Metric{"invol cs/s " + report.RowName(c.Who), cmpstat.LowerIsBetter}, c.InvoluntaryPS)
	}
}

// runsSampled is a run record's one configuration: its runs are the
// repetitions, those left out (failed, interrupted) counted apart.
func runsSampled(r *record.Head, runs []runJSON) *Sampled {
	s := &Sampled{Key: "run", Label: runLabel(r.Flags), Vars: map[string]string{}}
	for _, k := range []string{"b", "n", "l", "writer"} {
		s.Vars[k] = r.Flags[k]
	}
	for i := range runs {
		if runs[i].LeftOut != "" {
			s.LeftOut++
			continue
		}
		s.addFigures(runs[i].Summary.EventsPerSec.Median, &runs[i].Summary.figuresJSON, runs[i].Pacing != nil)
	}
	return s
}

// runLabel names a run's configuration by the flags that shape its
// workload; every other flag is in the record, and compare prints those
// that differ between records before the tables.
func runLabel(flags map[string]string) string {
	label := fmt.Sprintf("-b %s -n %s -l %s -writer %s", flags["b"], flags["n"], flags["l"], flags["writer"])
	if r := flags["rate"]; r != "" && r != "0" {
		// Open loop: no tokens in flight; -l's value is its default.
		label = fmt.Sprintf("-b %s -n %s -rate %s -writer %s", flags["b"], flags["n"], r, flags["writer"])
	}
	if flags["f"] == "true" {
		label = fmt.Sprintf("-f -n %s -l %s -writer %s", flags["n"], flags["l"], flags["writer"])
	}
	return label
}

// pointsSampled are a sweep's configurations, one per key, in the order
// of keys (sweep.Result.Keys: the grid's, with the points -refine added
// among them): pipes, tokens in flight, writers, readers, then backends
// as listed.
func pointsSampled(points []pointJSON, keys []sweep.Key) []*Sampled {
	byKey := map[string]*Sampled{}
	var out []*Sampled
	order := map[*Sampled]int{}
	at := map[sweep.Key]int{}
	for i, k := range keys {
		at[k] = i
	}
	for i := range points {
		p := &points[i]
		key := fmt.Sprintf("-b %s -n %d -l %d", p.Backend, p.Pipes, p.InFlight)
		vars := map[string]string{"b": p.Backend, "n": fmt.Sprint(p.Pipes), "l": fmt.Sprint(p.InFlight)}
		if p.Rate > 0 {
			// An open-loop point: its rate is part of what it is.
			r := sweep.RateText(p.Rate, p.OfSaturation)
			key = fmt.Sprintf("-b %s -n %d -rate %s", p.Backend, p.Pipes, r)
			vars = map[string]string{"b": p.Backend, "n": fmt.Sprint(p.Pipes), "rate": r}
		}
		if p.Writers > 0 {
			key += fmt.Sprintf(" -writers %d", p.Writers)
			vars["writers"] = fmt.Sprint(p.Writers)
		}
		if p.Readers > 0 {
			key += fmt.Sprintf(" -readers %d", p.Readers)
			vars["readers"] = fmt.Sprint(p.Readers)
		}
		s := byKey[key]
		if s == nil {
			s = &Sampled{Key: key, Label: key, Vars: vars}
			byKey[key] = s
			out = append(out, s)
			order[s] = at[sweep.Key{Backend: p.Backend, Pipes: p.Pipes, InFlight: p.InFlight, Writers: p.Writers, Readers: p.Readers,
				Rate: p.Rate, OfSaturation: p.OfSaturation}]
		}
		s.addFigures(p.EventsPerSec, &p.figuresJSON, p.Pacing != nil)
	}
	// The grid's own order (experiment/sweep): pipes, tokens in flight,
	// writers, readers, then backends as listed.
	sort.SliceStable(out, func(i, j int) bool { return order[out[i]] < order[out[j]] })
	return out
}

// herdJSON is one repetition of one EPOLLEXCLUSIVE setting of a herd.
type herdJSON struct {
	Setup struct {
		Exclusive bool `json:"exclusive"`
	} `json:"setup"`
	Interrupted bool `json:"interrupted"`
	Figures     struct {
		EventsPerSec struct {
			Median float64 `json:"median"`
		} `json:"evts_per_sec"`
		TokensPerSec          float64 `json:"tokens_per_sec"`
		WakeupsPerToken       float64 `json:"wakeups_per_token"`
		ReturnsPerToken       float64 `json:"returns_per_token"`
		WastedReturnsPerToken float64 `json:"wasted_returns_per_token"`
		WastedReadsPerToken   float64 `json:"wasted_reads_per_token"`
		SystemPerToken        float64 `json:"system_ns_per_token"`
		UserPerToken          float64 `json:"user_ns_per_token"`
		WriterSystemPerToken  float64 `json:"writer_system_ns_per_token"`
	} `json:"figures"`
}

// herdSampled are a herd's settings (EPOLLEXCLUSIVE off, on), each with
// its repetitions; shape names the herd (waiters, mode, pipes, tokens).
func herdSampled(sides []herdJSON, shape string) []*Sampled {
	var out []*Sampled
	by := map[bool]*Sampled{}
	for i := range sides {
		h := &sides[i]
		ex := h.Setup.Exclusive
		s := by[ex]
		if s == nil {
			on := map[bool]string{false: "off", true: "on"}[ex]
			label := shape + " -exclusive " + on
			s = &Sampled{Key: label, Label: label, Vars: map[string]string{"exclusive": on}}
			by[ex] = s
			out = append(out, s)
		}
		if h.Interrupted {
			s.LeftOut++
			continue
		}
		f := &h.Figures
		for _, m := range []struct {
			m Metric
			v float64
		}{
			{mEvents, f.EventsPerSec.Median}, {mTokens, f.TokensPerSec},
			{Metric{"wake-ups/token", cmpstat.LowerIsBetter}, f.WakeupsPerToken},
			{Metric{"returns/token", cmpstat.LowerIsBetter}, f.ReturnsPerToken},
			{Metric{"wasted returns/token", cmpstat.LowerIsBetter}, f.WastedReturnsPerToken},
			{Metric{"wasted reads/token", cmpstat.LowerIsBetter}, f.WastedReadsPerToken},
			{Metric{"waiters' sys ns/token", cmpstat.LowerIsBetter}, f.SystemPerToken},
			{Metric{"waiters' user ns/token", cmpstat.LowerIsBetter}, f.UserPerToken},
			{Metric{"writer sys ns/token", cmpstat.LowerIsBetter}, f.WriterSystemPerToken},
		} {
			s.add(m.m, m.v)
		}
	}
	return out
}

// timeoutJSON is one repetition of a timeout measurement.
type timeoutJSON struct {
	Interrupted bool `json:"interrupted"`
	Points      []struct {
		Mechanism string  `json:"mechanism"`
		Requested int64   `json:"requested_ns"`
		Min       float64 `json:"min_ns"`
		P50       float64 `json:"p50_ns"`
		P99       float64 `json:"p99_ns"`
		Max       float64 `json:"max_ns"`
		Mean      float64 `json:"mean_ns"`
	} `json:"points"`
}

// timeoutSampled are a timeout measurement's (mechanism, timeout)
// points, each with its repetitions' overshoots.
func timeoutSampled(reps []timeoutJSON) []*Sampled {
	var out []*Sampled
	by := map[string]*Sampled{}
	for _, r := range reps {
		for _, p := range r.Points {
			key := fmt.Sprintf("-mechanisms %s -timeouts %v", p.Mechanism, time.Duration(p.Requested))
			s := by[key]
			if s == nil {
				s = &Sampled{Key: key, Label: key, Vars: map[string]string{"mechanisms": p.Mechanism, "timeouts": time.Duration(p.Requested).String()}}
				by[key] = s
				out = append(out, s)
			}
			if r.Interrupted {
				s.LeftOut++
				continue
			}
			for _, m := range []struct {
				name string
				v    float64
			}{{"overshoot p50 ns", p.P50}, {"overshoot p99 ns", p.P99}, {"overshoot mean ns", p.Mean}, {"overshoot min ns", p.Min}, {"overshoot max ns", p.Max}} {
				s.add(Metric{m.name, cmpstat.LowerIsBetter}, m.v)
			}
		}
	}
	return out
}
