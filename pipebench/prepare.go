package pipebench

import (
	"github.com/pipebench/pipebench/internal/fdlimit"
	"github.com/pipebench/pipebench/internal/osthread"
)

// Observers are the caller's hooks into a run, apart from its settings
// (Config): what it hears as the run goes, and how it ends one early. The
// record holds none of them; the zero value observes nothing.
type Observers struct {
	// Stop, when closed, ends the run early; the result is still complete.
	Stop <-chan struct{}
	// OnSetup is called once the pipes are ready and the reader and writer
	// threads are waiting to start: the measured window begins when it
	// returns (profilers start here).
	OnSetup func(Setup)
	// OnInterval is called at the end of every full interval, from the
	// reporting goroutine.
	OnInterval func(Interval)
	// OnDone is called as soon as the measured window ends, before teardown
	// (profilers stop here).
	OnDone func()
	// Labels are pprof labels ("backend": "epoll", ...) set on the reader
	// and writer goroutines of this process, so that a Go CPU profile tells
	// them apart; the harness adds "role" (reader, writer, or reader+writer
	// in self mode) and "writer" (the mode that ran). Nil sets none.
	Labels map[string]string
}

// Prepared is a run checked against every rule and planned, ready to run:
// Prepare makes one, and its Run runs it without checking again.
type Prepared struct {
	given Config // as the caller gave it
	cfg   Config // with its defaults, and Spread's CPUs, filled in
	plan  fdPlan
}

// Prepare is the one entry point to a run's rules: it checks c against
// every one of them (the settings', the warm-up's, the backend's own
// Factory.Check, the CPUs this process may use), raises the descriptor
// limit and plans the writer mode and the descriptors with extraFDs more
// open than now (files the caller will open before Run, an output file,
// say), before anything is made. A refusal is a *ConfigError, or a
// *LimitError for a run that does not fit this machine, written by names
// (nil: by the Config's own field names). Nothing a Prepared run does
// afterwards is a refusal of its configuration: its errors are failures.
func Prepare(c Config, extraFDs int, names Names) (*Prepared, error) {
	p := &Prepared{given: c, cfg: c.withDefaults()}
	if err := p.cfg.check(names); err != nil {
		return nil, err
	}
	if err := p.place(extraFDs, names); err != nil {
		return nil, err
	}
	return p, nil
}

// place plans p's descriptors on this machine, with extraFDs more open
// than now, and resolves Spread to a CPU for each measured thread.
func (p *Prepared) place(extraFDs int, names Names) error {
	limit, base, err := fdlimit.Budget()
	if err != nil {
		return err
	}
	if p.plan, err = planFDs(&p.cfg, base+extraFDs, limit, names); err != nil {
		return err
	}
	if p.cfg.Spread {
		allowed, err := osthread.AllowedCPUs()
		if err != nil {
			return names.Errorf("%s: %v", Set("CPUs", "spread"), err)
		}
		p.cfg.CPUs = p.cfg.spreadCPUs(allowed)
	}
	return nil
}

// Config is the run's configuration as it was given to Prepare.
func (p *Prepared) Config() Config { return p.given }

// Run makes the pipes, measures for the Config's Duration (or until
// obs.Stop), tears everything down and accounts for every token. It may be
// called again, each time on fresh pipes and threads. A run that fails
// after measuring returns its partial result with the error.
func (p *Prepared) Run(obs Observers) (*Result, error) {
	r := &run{cfg: p.cfg, plan: p.plan, hooks: obs}
	defer r.release()
	if err := r.setup(); err != nil {
		return nil, err
	}
	n := r.measuredThreads()
	procs, release := osthread.LendPs(n)
	defer release()
	r.obs.gomaxprocs, r.obs.lentPs = procs, n
	return r.measure()
}

// Run prepares c (Prepare, naming settings by their Config fields, with no
// descriptor of the caller's to come) and runs it: for a caller that
// prepares nothing ahead (a test, a program of one run).
func Run(c Config, obs Observers) (*Result, error) {
	p, err := Prepare(c, 0, nil)
	if err != nil {
		return nil, err
	}
	return p.Run(obs)
}
