package seeds

import (
	"errors"
	"fmt"
	"time"

	"github.com/pipebench/pipebench/experiment/herd"
	"github.com/pipebench/pipebench/experiment/timeout"
	"github.com/pipebench/pipebench/pipebench/summary"
)

// rows judges every claim from what the steps measured.
func (x *runner) rows() []Row {
	var rows []Row
	rows = append(rows, x.rows001()...)
	rows = append(rows, x.rows004()...)
	rows = append(rows, x.rows000()...)
	rows = append(rows, x.rows002()...)
	rows = append(rows, x.rows003()...)
	return rows
}

// claim is a row before it is judged: what the seed claims and its figure.
type claim struct {
	seed, text, unit string
	theirs           float64 // 0: none published
	theirsFrom       string
	command          string
}

// judged is the row of c with the figure here, judged by judge. The row
// keeps judge, so that the median of several runs' figures can be judged
// the same way (mergeRounds).
func (c claim) judged(here float64, hereFrom string, judge func(float64) Judgement) Row {
	r := newRow(c.seed, c.text, c.unit, c.theirs, c.theirsFrom, here, hereFrom, judge(here), c.command)
	r.judge = judge
	return r
}

// sameSide, expect and fixed are SameSide, Expect and a fixed judgement
// as functions of the figure here.
func sameSide(seed float64) func(float64) Judgement {
	return func(here float64) Judgement { return SameSide(seed, here) }
}

func expect(want Side) func(float64) Judgement {
	return func(here float64) Judgement { return Expect(want, here) }
}

func fixed(j Judgement) func(float64) Judgement { return func(float64) Judgement { return j } }

// missing is the row of c when a figure here could not be measured.
func (c claim) missing(why string) Row {
	return newRow(c.seed, c.text, c.unit, c.theirs, c.theirsFrom, 0, "", Incomparable("no figure here: "+why), c.command)
}

// ratioOf is a/b of two figures, and its source line.
func ratioOf(a, b Figure) (float64, string) {
	return a.Value / b.Value, fmt.Sprintf("%g ÷ %g (testdata/%s: %s; %s)", a.Value, b.Value, a.File, a.Where, b.Where)
}

// sum is step name's summary, or why there is none.
func (x *runner) sum(name string) (summary.Summary, error) {
	o, ok := x.runs[name]
	if !ok {
		return summary.Summary{}, fmt.Errorf("%s: %w", name, errInterrupted)
	}
	if o.err != nil {
		if errors.Is(o.err, errInterrupted) {
			return summary.Summary{}, fmt.Errorf("%s: %w", name, o.err)
		}
		return summary.Summary{}, fmt.Errorf("%s: %w", name, o.err)
	}
	return o.sum, nil
}

// sums are the summaries of steps a and b, or why one is missing.
func (x *runner) sums(a, b string) (summary.Summary, summary.Summary, error) {
	sa, err := x.sum(a)
	if err != nil {
		return sa, summary.Summary{}, err
	}
	sb, err := x.sum(b)
	return sa, sb, err
}

func evts(s summary.Summary) float64 { return s.EventsPerSec.Median }

// spc describes a run's samples per call.
func spc(s summary.Summary) string { return fmt.Sprintf("%.3g samples per call", s.SamplesPerCall) }

func (x *runner) rows001() []Row {
	p := x.plan
	cpu := ""
	if p.CPU >= 0 {
		cpu = fmt.Sprintf(" -cpu %d", p.CPU)
	}
	cmd := func(n, l int) string {
		return fmt.Sprintf("pipebench -b epoll-et -n %d -l %d -writer thread%s", n, l, cpu)
	}
	var rows []Row
	for _, b := range []struct {
		text        string
		pipes       int
		many, one   Figure
		manyS, oneS string
	}{
		{"batching pays at 1000 pipes: many events per call beat one", p.Small, epb1000l10, epb1000l1, s001Small0, s001Small1},
		{"batching loses at 10000 pipes (\"CPU cache is not large enough\"), on one CPU with threads", p.Big, epb10000l10, epb10000l1, s001Big0, s001Big1},
	} {
		theirs, from := ratioOf(b.many, b.one)
		c := claim{"001", b.text, "evts/sec, many events per call ÷ one", theirs,
			from + ": the seed's -l 10 gave hundreds of samples per call, its -l 1 one; here the unbounded writer (-l 0) stands for its -l 10 (docs/seeds.md)",
			cmd(b.pipes, 0) + "; " + cmd(b.pipes, 1)}
		many, one, err := x.sums(b.manyS, b.oneS)
		if err != nil {
			rows = append(rows, c.missing(err.Error()))
			continue
		}
		here := evts(many) / evts(one)
		rows = append(rows, c.judged(here, fmt.Sprintf("%.0f at -n %d -l 0 (%s) ÷ %.0f at -l 1 (%s)", evts(many), b.pipes, spc(many), evts(one), spc(one)), sameSide(theirs)))
	}
	theirs, from := ratioOf(epbBypass, epb10000l1)
	c := claim{"001", "the bypass (-f, no readiness call) is a floor above epoll at 10000 pipes", "evts/sec, bypass ÷ epoll -l 1", theirs, from,
		fmt.Sprintf("pipebench -n %d -f%s; pipebench -b epoll-et -n %d -l 1 -writer process%s", p.BigProcess, cpu, p.BigProcess, cpu)}
	if by, ep, err := x.sums(s001Bypass, s001EpollProc); err != nil {
		rows = append(rows, c.missing(err.Error()))
	} else {
		here := evts(by) / evts(ep)
		rows = append(rows, c.judged(here, fmt.Sprintf("%.0f with -f (writer process) ÷ %.0f with epoll-et -l 1 (writer process)", evts(by), evts(ep)), sameSide(theirs)))
	}
	theirs, from = ratioOf(pipePoll10000, pipePoll1000)
	c = claim{"001", "pipe_poll takes a larger share of the kernel's samples at 10000 pipes than at 1000", "pipe_poll's share of samples, 10000 ÷ 1000 pipes", theirs, from,
		fmt.Sprintf("pipebench -b epoll-et -n %d -l 0 -writer thread%s -kprofile k.pb.gz; the same at -n %d", p.bigProfiled(), cpu, p.Small)}
	rows = append(rows, x.profileRow(c))
	return rows
}

// profileRow is the profile-shift row: pipe_poll's share at Big over its
// share at Small, from the kernel profiles of the -l 0 runs.
func (x *runner) profileRow(c claim) Row {
	if x.perf != nil {
		return c.missing("perf cannot record here: " + x.perf.Error())
	}
	if _, _, err := x.sums(s001Big0K, s001Small0K); err != nil {
		return c.missing(err.Error())
	}
	big, small := x.shares[s001Big0K], x.shares[s001Small0K]
	for _, s := range []share{big, small} {
		if s.err != nil {
			return c.missing("kernel profile: " + s.err.Error())
		}
	}
	here := big.value / small.value
	return c.judged(here, fmt.Sprintf("%.3g%% at -n %d ÷ %.3g%% at -n %d (perf, flat, both processes' samples)", big.value, x.plan.bigProfiled(), small.value, x.plan.Small), sameSide(c.theirs))
}

// rows004 sets the sweep beside pipetest 2002: epoll over poll at each
// pipe count, poll's fall and epoll's flatness from 1000 pipes to the
// largest count.
func (x *runner) rows004() []Row {
	p := x.plan
	at := map[string]float64{} // "backend/pipes" -> median evts/sec
	why := ""
	switch {
	case x.sweepErr != nil && errors.Is(x.sweepErr, errInterrupted):
		why = "the sweep was interrupted before it ran"
	case x.sweep == nil:
		why = "the sweep did not run"
	default:
		for _, pt := range x.sweep.Points {
			at[fmt.Sprintf("%s/%d", pt.Backend, pt.Pipes)] = pt.EventsPerSec
		}
		for _, m := range x.sweep.Skipped {
			at[m.Key.Backend+"/"+fmt.Sprint(m.Key.Pipes)+"/why"] = 0
			why = m.Key.String() + " skipped: " + m.Reason
		}
		if x.sweep.Failure != nil {
			why = x.sweep.Failure.Key.String() + ": " + x.sweep.Failure.Reason
		}
		if why == "" && x.sweep.Interrupted {
			why = "the sweep was interrupted"
		}
	}
	figs := func(n int) (int, bool) { // the 2002 table's row for n pipes here
		if n >= 9995 && n <= 10000 {
			return 10000, true
		}
		_, ok := pipetestPoll[n]
		return n, ok
	}
	get := func(b string, n int) (float64, bool) {
		v, ok := at[fmt.Sprintf("%s/%d", b, n)]
		return v, ok && v > 0
	}
	missingWhy := func(n int) string {
		if why != "" {
			return why
		}
		return fmt.Sprintf("no measurement at %d pipes", n)
	}
	var rows []Row
	note := ""
	for _, n := range p.SweepPipes {
		ref, ok := figs(n)
		if !ok {
			continue
		}
		if ref != n {
			note = fmt.Sprintf("; %d pipes here for the 2002 table's %d: the most every backend holds in one process under a limit of 20000", n, ref)
		}
		theirs, from := ratioOf(pipetestEpoll[ref], pipetestPoll[ref])
		c := claim{"004", fmt.Sprintf("epoll beats poll at %d pipes", ref), "token passes (evts)/sec, epoll ÷ poll", theirs, from + note,
			fmt.Sprintf("pipebench sweep -b poll,epoll -n %d -l 1 -writer self", n)}
		ep, ok1 := get("epoll", n)
		po, ok2 := get("poll", n)
		if !ok1 || !ok2 {
			rows = append(rows, c.missing(missingWhy(n)))
			continue
		}
		here := ep / po
		rows = append(rows, c.judged(here, fmt.Sprintf("%.0f ÷ %.0f at %d pipes", ep, po, n), sameSide(theirs)))
	}
	last := p.SweepPipes[len(p.SweepPipes)-1]
	lref, lok := figs(last)
	if _, ok := figs(1000); !ok || !lok || last <= 1000 {
		return rows
	}
	beyond := "; the 2002 table goes on to 16000 pipes, which one process cannot hold here with -writer self (2 descriptors a pipe, limit 20000)"
	cmd := fmt.Sprintf("pipebench sweep -b poll,epoll -n 1000,%d -l 1 -writer self", last)
	fall := func(c claim, backend string, judge func(float64) Judgement) Row {
		a, ok := get(backend, 1000)
		if !ok {
			return c.missing(missingWhy(1000))
		}
		b, ok := get(backend, last)
		if !ok {
			return c.missing(missingWhy(last))
		}
		here := a / b
		return c.judged(here, fmt.Sprintf("%.0f at 1000 ÷ %.0f at %d pipes", a, b, last), judge)
	}
	theirs, from := ratioOf(pipetestPoll[1000], pipetestPoll[lref])
	half := float64(last) / 1000 / 2
	rows = append(rows, fall(claim{"004", fmt.Sprintf("poll falls as pipes grow, about as 1/N or faster: from 1000 to %d pipes", lref), "poll evts/sec, 1000 ÷ N pipes", theirs, from + beyond, cmd}, "poll",
		func(here float64) Judgement {
			return AtLeast(half, here, fmt.Sprintf("half the %.3gx fall that 1/N predicts: pipebench's bound", 2*half))
		}))
	theirs, from = ratioOf(pipetestEpoll[1000], pipetestEpoll[lref])
	rows = append(rows, fall(claim{"004", fmt.Sprintf("epoll stays flat as pipes grow: from 1000 to %d pipes", lref), "epoll evts/sec, 1000 ÷ N pipes", theirs, from + beyond, cmd}, "epoll",
		func(here float64) Judgement {
			return AtMost(1.25, here, "a fall of at most 25%: pipebench's bound for flat")
		}))
	return rows
}

// rows000 sets the herd beside the EPOLLEXCLUSIVE test: time for the same
// work, the waker's system time for it, and wake-ups per token.
func (x *runner) rows000() []Row {
	p := x.plan
	cmd := fmt.Sprintf("pipebench herd -mode %s -waiters %d -n %d -l %d", p.HerdMode, p.HerdWaiters, p.HerdPipes, p.HerdInFlight)
	realR, realFrom := ratioOf(herdRealOff, herdRealOn)
	sysR, sysFrom := ratioOf(herdSysOff, herdSysOn)
	cs := []claim{
		{"000", fmt.Sprintf("EPOLLEXCLUSIVE: %d waiters on one event source do the same work in less time", p.HerdWaiters), "time for the same work, exclusive off ÷ on", realR,
			realFrom + ": bankcl's real time for 1,000,000 calls", cmd},
		{"000", "EPOLLEXCLUSIVE: the side that wakes the waiters spends less system time on the same work", "system time for the same work, off ÷ on", sysR,
			sysFrom + ": bankcl's sys time (the calling client, which wakes the servers)", cmd},
		{"000", "without EPOLLEXCLUSIVE one event wakes several waiters, with it about one", "wake-ups per token, off ÷ on", 0,
			"no figure: the seed's debug prints counted about 10 ep_poll_callback calls per event with 10 waiters, a different count", cmd},
	}
	if x.herdErr != nil || x.herd == nil || len(x.herd.Settings) != 2 {
		why := "the herd did not run"
		if x.herdErr != nil {
			why = "herd: " + x.herdErr.Error()
		}
		var rows []Row
		for _, c := range cs {
			rows = append(rows, c.missing(why))
		}
		return rows
	}
	var f [2]herd.Figures
	for i, s := range x.herd.Settings {
		f[i] = s.Figures(p.Warmup)
	}
	off, on := f[0], f[1]
	work := on.TokensPerSec / off.TokensPerSec
	sys := off.WriterSystemPerToken / on.WriterSystemPerToken
	wake := off.WakeupsPerToken / on.WakeupsPerToken
	return []Row{
		cs[0].judged(work, fmt.Sprintf("tokens/sec on ÷ off: %.0f ÷ %.0f (%d waiter %s)", on.TokensPerSec, off.TokensPerSec, p.HerdWaiters, p.HerdMode), sameSide(realR)),
		cs[1].judged(sys, fmt.Sprintf("the writer thread's system CPU per token off ÷ on: %v ÷ %v", time.Duration(off.WriterSystemPerToken), time.Duration(on.WriterSystemPerToken)), sameSide(sysR)),
		cs[2].judged(wake, fmt.Sprintf("%.4g ÷ %.4g wake-ups per token", off.WakeupsPerToken, on.WakeupsPerToken), expect(Above)),
	}
}

// rows003 sets timeout overshoot, churn and latency beside the
// epoll_pwait1 thread.
func (x *runner) rows003() []Row {
	p := x.plan
	var rows []Row
	first := p.Timeouts[0]
	tcmd := fmt.Sprintf("pipebench timeout -timeouts %v -mechanisms epoll_wait,epoll_pwait2,epoll+timerfd -samples %d", first, p.TimeoutSamples)
	stated := "no figure: the thread states that epoll_pwait's 1 ms timeout is too coarse, and a reply proposes a timerfd for the precision"
	for _, m := range []timeout.Mechanism{timeout.EpollPwait2, timeout.Timerfd} {
		c := claim{"003", fmt.Sprintf("epoll_wait rounds a %v timeout up to 1 ms; %s does not", first, m), fmt.Sprintf("median overshoot, epoll_wait ÷ %s", m), 0, stated, tcmd}
		ew, e1 := x.overshoot(timeout.EpollWait, first)
		other, e2 := x.overshoot(m, first)
		if err := errors.Join(e1, e2); err != nil {
			rows = append(rows, c.missing(err.Error()))
			continue
		}
		here := float64(ew) / float64(max(other, time.Nanosecond))
		rows = append(rows, c.judged(here, fmt.Sprintf("%v ÷ %v at a %v timeout", ew, other, first), expect(Above)))
	}
	c := claim{"003", fmt.Sprintf("one epoll_ctl per change makes epoll lose to poll on a small set changing fast (%d pipes, %d changes per call)", p.ChurnPipes, p.Churn),
		"evts/sec, poll ÷ epoll", 0, "no figure: the series' cover letter states it (one epoll_ctl per fd update against poll's one call with the array)",
		fmt.Sprintf("pipebench -n %d -l 1 -writer self -churn %d -b poll; the same with -b epoll", p.ChurnPipes, p.Churn)}
	if po, ep, err := x.sums(s003ChurnPoll, s003ChurnEp); err != nil {
		rows = append(rows, c.missing(err.Error()))
	} else {
		here := evts(po) / evts(ep)
		rows = append(rows, c.judged(here, fmt.Sprintf("%.0f ÷ %.0f (epoll: %.3g ctl calls per event)", evts(po), evts(ep), ep.CtlPerEvent), expect(Above)))
	}
	lat := map[string]float64{}
	latErr := map[int]error{}
	for _, n := range p.LatencyPipes {
		for _, b := range []string{"poll", "epoll"} {
			s, err := x.sum(latencyStep(b, n))
			switch {
			case err != nil:
				latErr[n] = errors.Join(latErr[n], err)
			case s.Latency == nil || s.Latency.P50 <= 0:
				latErr[n] = errors.Join(latErr[n], fmt.Errorf("%s: no latency recorded", latencyStep(b, n)))
			default:
				lat[fmt.Sprintf("%s/%d", b, n)] = s.Latency.P50
			}
		}
	}
	lcmd := func(n int) string {
		return fmt.Sprintf("pipebench -n %d -l 1 -writer thread -latency -b poll; the same with -b epoll", n)
	}
	epollNote := "; the seed's epoll figures are QEMU with the proposed epoll_pwait1, not an existing call (asked about existing epoll with a timerfd, the author found it too close to epoll_pwait1 to see differences)"
	for i, n := range p.LatencyPipes {
		if i >= len(qemuFDs) {
			break
		}
		theirs, from := ratioOf(qemuPpoll[qemuFDs[i]], qemuEpoll[qemuFDs[i]])
		c := claim{"003", latencyClaim(theirs, n), "median latency, ppoll ÷ epoll", theirs, from + epollNote, lcmd(n)}
		if err := latErr[n]; err != nil {
			rows = append(rows, c.missing(err.Error()))
			continue
		}
		po, ep := lat[fmt.Sprintf("poll/%d", n)], lat[fmt.Sprintf("epoll/%d", n)]
		here := po / ep
		rows = append(rows, c.judged(here, fmt.Sprintf("%v ÷ %v write-to-read, 1 token in %d pipes", time.Duration(po), time.Duration(ep), n), sameSide(theirs)))
	}
	if len(p.LatencyPipes) >= 2 {
		a, b := p.LatencyPipes[0], p.LatencyPipes[len(p.LatencyPipes)-1]
		fa, fb := qemuFDs[0], qemuFDs[min(len(p.LatencyPipes), len(qemuFDs))-1]
		theirs := (qemuPpoll[fb].Value / qemuPpoll[fa].Value) / (qemuEpoll[fb].Value / qemuEpoll[fa].Value)
		from := fmt.Sprintf("(%g ÷ %g) ÷ (%g ÷ %g) (testdata/epoll_pwait1-2015.csv: seed 003 lines 41-48)%s",
			qemuPpoll[fb].Value, qemuPpoll[fa].Value, qemuEpoll[fb].Value, qemuEpoll[fa].Value, epollNote)
		c := claim{"003", fmt.Sprintf("ppoll's latency grows faster than epoll's from %d to %d descriptors", fa, fb), "latency growth, ppoll's ÷ epoll's", theirs, from, lcmd(a) + "; the same at -n " + fmt.Sprint(b)}
		if err := errors.Join(latErr[a], latErr[b]); err != nil {
			rows = append(rows, c.missing(err.Error()))
		} else {
			pg := lat[fmt.Sprintf("poll/%d", b)] / lat[fmt.Sprintf("poll/%d", a)]
			eg := lat[fmt.Sprintf("epoll/%d", b)] / lat[fmt.Sprintf("epoll/%d", a)]
			here := pg / eg
			rows = append(rows, c.judged(here, fmt.Sprintf("poll %.3gx ÷ epoll %.3gx from %d to %d pipes", pg, eg, a, b), sameSide(theirs)))
		}
	}
	return rows
}

// latencyClaim is what seed 003's latencies say at n descriptors, by the
// side of 1 their ratio (ppoll ÷ epoll) lies on: at 10~20 descriptors 37
// against 36 µs is level by pipebench's 5% rule, so the seed claims no
// difference there; at 80~90 and ~200 ppoll's is the larger.
func latencyClaim(theirs float64, n int) string {
	switch SideOf(theirs) {
	case Level:
		return fmt.Sprintf("a wake-up costs ppoll about what it costs epoll with few idle descriptors: %d descriptors", n)
	case Above:
		return fmt.Sprintf("a wake-up costs ppoll more than epoll as idle descriptors grow: %d descriptors", n)
	}
	return fmt.Sprintf("a wake-up costs ppoll less than epoll: %d descriptors", n)
}

// overshoot is mechanism m's median overshoot at timeout d.
func (x *runner) overshoot(m timeout.Mechanism, d time.Duration) (time.Duration, error) {
	if x.timeoutErr != nil {
		return 0, fmt.Errorf("timeout: %w", x.timeoutErr)
	}
	if x.timeout == nil {
		return 0, errors.New("the timeout measurement did not run")
	}
	for _, pt := range x.timeout.Points {
		if pt.Mechanism == m && pt.Requested == d && pt.Samples > 0 {
			return pt.P50, nil
		}
	}
	return 0, fmt.Errorf("no %s samples at %v", m, d)
}
