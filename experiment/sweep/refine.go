package sweep

import (
	"errors"

	"github.com/pipebench/pipebench/internal/rounds"
)

// refine narrows the crossings' brackets after the grid has run, step by
// step. Each step finds the crossings of everything measured so far and,
// for every crossing whose bracket's ends are more than a factor
// opt.Refine apart, adds both curves' points at the pipe count nearest the
// bracket's geometric middle; the step's points run opt.Rounds times, in
// rounds each in an order of its own, as the grid's did. It stops when no
// bracket is left to narrow (each is within the factor, has no pipe count
// between its ends, is a tie, or, with several rounds, is not resolved),
// when the next step would pass the budget
// of points, or when the sweep ends (interrupt or failure: the error).
func (s *sweeper) refine(grid []Job) error {
	if s.opt.Job == nil {
		return errors.New("refine: no way to make a point's job (Options.Job)")
	}
	rf := s.res.Refine
	tried := map[Key]bool{}
	for _, j := range grid {
		tried[j.Key] = true
	}
	for step := 1; ; step++ {
		if stopped(s.opt.Stop) {
			s.res.Interrupted = true
			return nil
		}
		var keys []Key
		for _, g := range s.refineKeys(tried) {
			if len(rf.Added)+len(keys)+len(g) > rf.Budget {
				rf.Spent = true
				break
			}
			keys = append(keys, g...)
		}
		if len(keys) == 0 {
			return nil
		}
		var jobs []Job
		for _, k := range keys {
			tried[k] = true
			rf.Added = append(rf.Added, k)
			j, err := s.opt.Job(k)
			if err != nil {
				s.res.Skipped = append(s.res.Skipped, Missing{Key: k, Reason: err.Error()})
				continue
			}
			jobs = append(jobs, j)
		}
		s.total += len(jobs) * s.rounds
		more, err := s.runRounds(jobs, rounds.Shuffled(len(jobs), s.rounds, s.opt.ShuffleSeed+uint64(step)))
		if !more {
			return err
		}
	}
}

// refineKeys are the points the next step adds, a group per bracket to
// narrow: both curves' points at the pipe count inside it, less those
// already tried.
func (s *sweeper) refineKeys(tried map[Key]bool) [][]Key {
	grid, factor := s.res.Grid, s.opt.Refine
	seen := map[Key]bool{}
	var groups [][]Key
	for _, p := range FindCrossings(s.res).Pairs {
		for _, c := range p.Crossings {
			// A crossing not resolved lies in the noise: a point between
			// would not tell more (more -count would), and refining it
			// chases the noise. With one run a point nothing is resolved,
			// and every bracket is narrowed.
			if c.Tie || c.To <= c.From*factor || !c.Resolved && s.rounds > 1 {
				continue
			}
			n, ok := grid.between(c.Over, int(c.From), int(c.To))
			if !ok {
				continue
			}
			var g []Key
			for _, cv := range []Curve{p.A, p.B} {
				if k := cv.at(n); !tried[k] && !seen[k] {
					seen[k] = true
					g = append(g, k)
				}
			}
			if len(g) > 0 {
				groups = append(groups, g)
			}
		}
	}
	return groups
}
