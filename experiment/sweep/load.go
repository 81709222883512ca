package sweep

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pipebench/pipebench/stats"
)

// An open-loop sweep (Grid.Rates, -rate) offers each point a fixed load:
// a paced writer sends tokens on a schedule, whatever the reader does
// (pipebench.Config.Rate). Its rates are tokens per second, or fractions
// of each curve's saturation: then the curve's saturation is measured
// first, once, as the tokens per second an unbounded writer (-l 0) moves
// in the same configuration (saturate).

// RateText writes a rate of a -rate list as the flag takes it: a fraction
// of saturation as a percentage ("50%", "110%"); tokens per second with k
// or M past a thousand ("183k", "1.5M", "370").
func RateText(rate float64, ofSaturation bool) string {
	f := func(x float64) string { return strconv.FormatFloat(stats.RoundSig(x, 6), 'f', -1, 64) }
	switch {
	case ofSaturation:
		return f(100*rate) + "%"
	case rate >= 1e6:
		return f(rate/1e6) + "M"
	case rate >= 1e3:
		return f(rate/1e3) + "k"
	}
	return f(rate)
}

// SaturationRate is fraction of saturation sat (tokens per second), to
// three significant digits, so that the rate a point ran at reads as
// RateText writes it and runs again as written.
func SaturationRate(fraction, sat float64) float64 {
	return stats.RoundSig(fraction*sat, 3)
}

// curve is the key of k's configuration without its rate: the unbounded
// run that measures its saturation.
func (k Key) curve() Key {
	k.Rate, k.OfSaturation, k.InFlight = 0, false, 0
	return k
}

// saturate measures the saturation of every curve of an open-loop grid
// whose rates are fractions of it: an unbounded writer (-l 0) in the
// configuration of the curve's first job otherwise, once, before the
// rounds; the least tokens/sec of its intervals after warm-up (the rate
// it held throughout) is the saturation, and its point is kept in
// Result.Saturation. It returns the jobs with their rates set
// (SaturationRate), less those of curves whose saturation could not be
// measured (their points are skipped, with why), and whether the sweep may
// go on: not when it was interrupted or a run failed (the error).
func (s *sweeper) saturate(jobs []Job) ([]Job, bool, error) {
	var curves []Job
	seen := map[Key]bool{}
	for _, j := range jobs {
		if c := j.Key.curve(); !seen[c] {
			seen[c] = true
			cfg := j.Config
			cfg.Rate, cfg.InFlight = 0, 0
			job, err := NewJob(c, cfg, nil)
			if err != nil {
				s.allNotRun(jobs, "not run: its configuration's saturation run cannot be made")
				return nil, false, fmt.Errorf("%s: %w", c, err)
			}
			curves = append(curves, job)
		}
	}
	s.total += len(curves)
	sat, why := map[Key]float64{}, map[Key]string{}
	for _, c := range curves {
		if stopped(s.opt.Stop) {
			s.res.Interrupted = true
			s.allNotRun(jobs, "interrupted before it ran")
			return nil, false, nil
		}
		outcome, err := s.measure(c, 1)
		s.done++
		switch {
		case err != nil:
			s.allNotRun(jobs, "not run: the sweep ended at a failed saturation run")
			return nil, false, err
		case outcome == interruptedRun:
			s.res.Interrupted = true
			s.allNotRun(jobs, "interrupted before it ran")
			return nil, false, nil
		case outcome == skippedRun:
			why[c.Key] = "its saturation run (" + c.Key.String() + ") cannot run here"
			continue
		}
		last := len(s.res.Points) - 1
		p := s.res.Points[last]
		s.res.Points = s.res.Points[:last]
		p.Round = 0
		s.res.Saturation = append(s.res.Saturation, p)
		if p.HeldTokensPerSec > 0 {
			sat[c.Key] = p.HeldTokensPerSec
		} else {
			why[c.Key] = "its saturation run (" + c.Key.String() + ") moved no token"
		}
	}
	var run []Job
	for _, j := range jobs {
		c := j.Key.curve()
		if sat[c] > 0 {
			// The job was prepared with its share for a rate; it runs at
			// that share of the saturation, which the rules took already
			// (a rate above 0 and up to pipebench.MaxRate).
			cfg := j.Config
			cfg.Rate = SaturationRate(j.Key.Rate, sat[c])
			job, err := NewJob(j.Key, cfg, nil)
			if err == nil && job.Prepared != nil {
				run = append(run, job)
				continue
			}
			why[c] = fmt.Sprintf("%v%s", err, job.Skip)
		}
		s.res.Skipped = append(s.res.Skipped, Missing{Key: j.Key, Reason: why[c]})
		s.total -= s.rounds
	}
	return run, true, nil
}

// allNotRun lists every round of every job as not run, for reason.
func (s *sweeper) allNotRun(jobs []Job, reason string) {
	for r := 1; r <= s.rounds; r++ {
		for _, j := range jobs {
			s.res.NotRun = append(s.res.NotRun, Missing{Key: j.Key, Round: s.round(r), Reason: reason})
		}
	}
}

// SaturationOf is the measured saturation of k's curve, tokens per
// second; 0 when none was measured (absolute rates, or its run missing).
func (r *Result) SaturationOf(k Key) float64 {
	c := k.curve()
	for _, p := range r.Saturation {
		if p.Key == c {
			return p.TokensPerSec
		}
	}
	return 0
}

// ProcessCPUPerEvent is the CPU time per event of the run's processes,
// the reading process and a writer process, in nanoseconds.
func (p Point) ProcessCPUPerEvent() float64 {
	return p.costSum(func(who string) bool { return who == "process" || who == "writer process" },
		func(c costFigures) float64 { return c.cpu })
}

// InvoluntaryPerSec is the involuntary context switches per second of the
// run's processes, the reading process and a writer process: the seed
// 002 patch's figure.
func (p Point) InvoluntaryPerSec() float64 {
	return p.costSum(func(who string) bool { return who == "process" || who == "writer process" },
		func(c costFigures) float64 { return c.invol })
}

// ThreadCPUPerEvent is the CPU time per event of the reader threads (role
// "reader") or the writer threads (role "writer"), every one of them, in
// nanoseconds.
func (p Point) ThreadCPUPerEvent(role string) float64 {
	return p.costSum(func(who string) bool { return strings.HasPrefix(who, role+" ") && strings.HasSuffix(who, "thread") },
		func(c costFigures) float64 { return c.cpu })
}

type costFigures struct{ cpu, invol float64 }

func (p Point) costSum(rows func(string) bool, of func(costFigures) float64) float64 {
	sum := 0.0
	for _, c := range p.Costs {
		if rows(c.Who) {
			sum += of(costFigures{c.CPUPerEvent, c.InvoluntaryPerSec})
		}
	}
	return sum
}
