package seeds

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/pipebench/pipebench/experiment/sweep"
	"github.com/pipebench/pipebench/pipebench"
)

// Seed 002 (the epoll min-wait patch, 2022) sets a 200 µs sleep before
// epoll_wait against its kernel minimum wait of 200 µs "at about ~370K
// reqs/second", the same load on both sides. Its rows run at one fixed
// offered load: a writer thread paced (Config.Rate) at Plan.LoadShare of
// the saturation an unbounded writer (-l 0) finds in the same
// configuration, measured just before. The patch's load was not its
// machine's saturation: it speaks of "medium workload efficiencies", and
// its host stayed 27-41% idle; half of saturation is pipebench's stand-in
// for such a load. The sleep against the minimum wait runs on uring,
// whose wait has io_uring's minimum wait (Linux 6.12): the epoll patch was
// not merged. The sleep against none runs on epoll, as the patch's
// statement about the sleep is of epoll_wait.

// steps002 is how many steps seed 002 takes: a saturation run and two
// runs at the fixed rate, on uring and on epoll.
const steps002 = 6

// Seed 002's step names.
const (
	s002UringSat   = "002 uring -l 0: saturation"
	s002UringSleep = "002 uring at a fixed rate, a sleep before each wait"
	s002UringMin   = "002 uring at a fixed rate, io_uring's minimum wait"
	s002EpollSat   = "002 epoll -l 0: saturation"
	s002EpollNone  = "002 epoll at a fixed rate, no sleep"
	s002EpollSleep = "002 epoll at a fixed rate, a sleep before each wait"
)

// seed002: on uring and on epoll, the saturation of an unbounded writer
// thread at DelayPipes pipes, then two runs paced at LoadShare of it:
// uring with the sleep and with io_uring's minimum wait, epoll without
// and with the sleep.
func (x *runner) seed002() {
	p := x.plan
	x.atLoad("uring", s002UringSat, [2]string{s002UringSleep, s002UringMin},
		[2]func(*pipebench.Config){func(c *pipebench.Config) { c.Delay = p.Delay }, func(c *pipebench.Config) { c.MinWait = p.MinWait }})
	x.atLoad("epoll", s002EpollSat, [2]string{s002EpollNone, s002EpollSleep},
		[2]func(*pipebench.Config){func(*pipebench.Config) {}, func(c *pipebench.Config) { c.Delay = p.Delay }})
}

// atLoad measures backend b's saturation (step sat), then steps at the
// plan's share of it, each with its setting. A step that cannot run here
// (io_uring's minimum wait before Linux 6.12, a limit of this machine) is
// not run and not a failure: its rows say why.
func (x *runner) atLoad(b, sat string, steps [2]string, set [2]func(*pipebench.Config)) {
	f := x.opt.Backends[b]
	x.measure(sat, x.config(f, x.plan.DelayPipes, 0, pipebench.WriterThread), false)
	s, err := x.sum(sat)
	if err == nil && s.HeldTokensPerSec <= 0 {
		err = errors.New(sat + ": no token moved")
	}
	if err == nil {
		x.saturation[b] = s.HeldTokensPerSec
	}
	for i, name := range steps {
		if err != nil {
			x.runs[name] = outcome{err: fmt.Errorf("no saturation to pace at: %w", err)}
			x.done++
			continue
		}
		cfg := x.config(f, x.plan.DelayPipes, 0, pipebench.WriterThread)
		cfg.Rate = sweep.SaturationRate(x.plan.LoadShare, s.HeldTokensPerSec)
		set[i](&cfg)
		if _, perr := pipebench.Prepare(cfg, 0, x.opt.Names); perr != nil {
			x.runs[name] = outcome{err: perr}
			x.done++
			continue
		}
		x.measure(name, cfg, false)
	}
}

// loadRun is what seed 002's rows read of one run at a fixed rate.
type loadRun struct {
	step string
	// behind names who fell behind the schedule when the run was past
	// saturation (pipebench.Pacing); "" when it kept it.
	behind string
	// samplesPerCall, cpuPerToken (ns, every process's) and the run's
	// processes' involuntary context switches per second; idle the share
	// of the CPUs the run may use that stayed idle (nil: not read).
	samplesPerCall, cpuPerToken, involPerSec float64
	idle                                     *float64
	// err says why the run has no figures.
	err error
}

// loadRun reads step name's figures.
func (x *runner) loadRun(name string) loadRun {
	s, err := x.sum(name)
	if err != nil {
		return loadRun{step: name, err: err}
	}
	r := loadRun{step: name, samplesPerCall: s.SamplesPerCall, cpuPerToken: s.CPUPerToken, idle: s.IdleShare,
		involPerSec: sweep.Point{Costs: s.Costs}.InvoluntaryPerSec()}
	if pc := x.runs[name].res.Pacing; pc == nil {
		r.behind = "run (it was not paced)"
	} else if pc.Saturated {
		r.behind = pc.Behind
	}
	return r
}

// rows002 judges seed 002's claims from what its steps measured.
func (x *runner) rows002() []Row {
	return judge002(x.plan, x.saturation, x.loadRun(s002UringSleep), x.loadRun(s002UringMin),
		x.loadRun(s002EpollNone), x.loadRun(s002EpollSleep))
}

// judge002 is seed 002's rows from the runs at the fixed load: epoll
// without and with the sleep (the patch's statement about the sleep:
// better batching, higher efficiency), uring with the sleep and with
// io_uring's minimum wait (the patch's figures: fewer involuntary context
// switches per second, more idle CPU). sat are the backends' saturations,
// tokens/s.
func judge002(p Plan, sat map[string]float64, uSleep, uMin, eNone, eSleep loadRun) []Row {
	d, mw := flagDuration(p.Delay), flagDuration(p.MinWait)
	said := "no figure: the patch states that production workloads sleep before epoll_wait() \"to get better batching and higher efficiencies\", and that \"this does help\", without numbers"
	onUring := "; io_uring's minimum wait stands for the epoll patch's, which was not merged (" + MinWaitHere() + ")"
	invR, invFrom := ratioOf(minwaitSleepInvol, minwaitKernInvol)
	idleR, idleFrom := ratioOf(minwaitKernIdle, minwaitSleepIdle)
	load := "; the seed's load was about 370K requests/s on its machine, a medium load (27-41% idle): here " + percent(p.LoadShare) + " of saturation"
	ecmd, ucmd := cmd002(p, "epoll", sat, "", "-delay "+d), cmd002(p, "uring", sat, "-delay "+d, "-minwait "+mw)
	cs := []claim{
		{"002", fmt.Sprintf("a %v sleep before each epoll wait batches more events per call, at one fixed load", p.Delay), "samples per call, sleep ÷ none", 0, said, ecmd},
		{"002", fmt.Sprintf("a %v sleep before each epoll wait costs less CPU per token, at one fixed load", p.Delay), "CPU per token, none ÷ sleep", 0, said, ecmd},
		{"002", fmt.Sprintf("a kernel minimum wait makes fewer involuntary context switches than a %v sleep, at one fixed load (io_uring's, not the epoll patch)", p.Delay),
			"involuntary cs/sec, sleep ÷ min-wait", invR, invFrom + load, ucmd},
		{"002", fmt.Sprintf("a kernel minimum wait leaves more CPU idle than a %v sleep, at one fixed load (io_uring's, not the epoll patch)", p.Delay),
			"idle CPU, min-wait ÷ sleep", idleR, idleFrom + load, ucmd},
	}
	at := func(b string) string {
		return fmt.Sprintf("%s at %s tokens/s, %s of the %.0f tokens/s an unbounded writer moved", b,
			sweep.RateText(sweep.SaturationRate(p.LoadShare, sat[b]), false), percent(p.LoadShare), sat[b])
	}
	var rows []Row
	if err := errors.Join(eNone.err, eSleep.err); err != nil {
		rows = append(rows, cs[0].missing(err.Error()), cs[1].missing(err.Error()))
	} else {
		batch := eSleep.samplesPerCall / eNone.samplesPerCall
		eff := eNone.cpuPerToken / eSleep.cpuPerToken
		rows = append(rows,
			cs[0].judged(batch, fmt.Sprintf("%.4g ÷ %.4g samples per call, -delay %s ÷ none, %s", eSleep.samplesPerCall, eNone.samplesPerCall, d, at("epoll")),
				func(h float64) Judgement { return steady(Expect(Above, h), eNone, eSleep) }),
			cs[1].judged(eff, fmt.Sprintf("%v ÷ %v of every process's CPU per token, none ÷ -delay %s, %s", time.Duration(eNone.cpuPerToken), time.Duration(eSleep.cpuPerToken), d, at("epoll")),
				func(h float64) Judgement { return steady(Expect(Above, h), eNone, eSleep) }))
	}
	if err := errors.Join(uSleep.err, uMin.err); err != nil {
		return append(rows, cs[2].missing(err.Error()), cs[3].missing(err.Error()))
	}
	if uSleep.involPerSec <= 0 || uMin.involPerSec <= 0 {
		rows = append(rows, cs[2].missing(fmt.Sprintf("%.0f and %.0f involuntary context switches a second with the sleep and the minimum wait: no ratio", uSleep.involPerSec, uMin.involPerSec)))
	} else {
		inv := uSleep.involPerSec / uMin.involPerSec
		rows = append(rows, cs[2].judged(inv, fmt.Sprintf("%.0f ÷ %.0f involuntary cs/sec of the run's processes, -delay %s ÷ -minwait %s, %s%s",
			uSleep.involPerSec, uMin.involPerSec, d, mw, at("uring"), onUring), func(h float64) Judgement { return steady(SameSide(invR, h), uSleep, uMin) }))
	}
	switch {
	case uSleep.idle == nil || uMin.idle == nil:
		return append(rows, cs[3].missing("the CPUs' idle time was not read (/proc/stat)"))
	case *uSleep.idle <= 0 || *uMin.idle <= 0:
		return append(rows, cs[3].missing(fmt.Sprintf("%.1f%% and %.1f%% of the CPUs idle with the sleep and the minimum wait: no ratio", 100**uSleep.idle, 100**uMin.idle)))
	}
	idl := *uMin.idle / *uSleep.idle
	return append(rows, cs[3].judged(idl, fmt.Sprintf("%.1f%% ÷ %.1f%% idle of the CPUs the run may use (/proc/stat, every program's use counted), -minwait %s ÷ -delay %s, %s%s",
		100**uMin.idle, 100**uSleep.idle, mw, d, at("uring"), onUring), func(h float64) Judgement { return steady(SameSide(idleR, h), uSleep, uMin) }))
}

// steady is j when every run kept its schedule; a run past saturation
// did not carry the fixed load, and the row is not comparable.
func steady(j Judgement, runs ...loadRun) Judgement {
	for _, r := range runs {
		if r.behind != "" {
			return Incomparable(fmt.Sprintf("%s was past saturation (the %s fell behind the schedule): not the fixed load", r.step, r.behind))
		}
	}
	return j
}

// cmd002 is the commands of seed 002's rows on backend b, runnable as
// printed: the saturation run, then a run at the plan's share of it with
// each of settings. Without a measured saturation the rate is said in
// words.
func cmd002(p Plan, b string, sat map[string]float64, settings ...string) string {
	base := fmt.Sprintf("pipebench -b %s -n %d -writer thread", b, p.DelayPipes)
	rate := "<" + percent(p.LoadShare) + " of the first command's tokens/s>"
	if s := sat[b]; s > 0 {
		rate = sweep.RateText(sweep.SaturationRate(p.LoadShare, s), false)
	}
	cmds := []string{base + " -l 0"}
	for _, s := range settings {
		cmds = append(cmds, strings.TrimSpace(base+" -rate "+rate+" "+s))
	}
	return strings.Join(cmds, "; ")
}

// percent writes a share as a percentage: 50%.
func percent(x float64) string { return sweep.RateText(x, true) }

// flagDuration writes d as a flag takes it, in ASCII: 200us.
func flagDuration(d time.Duration) string { return strings.ReplaceAll(d.String(), "µs", "us") }
