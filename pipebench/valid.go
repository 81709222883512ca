package pipebench

import (
	"fmt"
	"math"
)

// CheckValid returns the first invariant res breaks, or nil. Every format
// relies on them; Run checks its result before returning it, so that a
// violation (a bug of the harness or of a backend) is an error naming the
// invariant, never a wrong number printed. They are:
//
//   - counts add up: the intervals are numbered 1, 2, ..., each lasts a
//     positive time, has no more empty calls than calls, and rates that are
//     its counts over its length (samples per call: its events over its
//     non-empty calls); the intervals and the tail add up to the totals,
//     and last no longer than the window; in the totals, every event and
//     every spurious report is a read of its own, every event carries a
//     token or more, and no more calls are empty than were made;
//   - several readers' rows cover the pipes once, in order (each all of
//     them with Setup.Share), and add up to the totals (ctl calls aside:
//     they are the backend instances', in the totals only), their usage to
//     the reader threads', and each interval's per-reader events to its
//     events;
//   - the histograms, when carried (a result decoded from JSON has none):
//     PerCall holds one value per readiness call, a zero for each empty one;
//     Latency one value per token received;
//   - tokens add up: Received is the totals' tokens; Lost is Sent minus
//     Received minus Drained (Sent and Lost are 0 when SentUnknown);
//     several writers' rows add up to the run's sent, full writes, writes,
//     reads, waits and writer threads' usage, and each row's Lost is its
//     own Sent minus Received minus Drained;
//   - an open-loop run's pacing adds up: its writers sent no token before
//     it was due, its backlog is the tokens due less those sent, and its
//     rates are the tokens sent and received over its window;
//   - tokens are conserved: nothing is lost, by the run or by any writer.
//
// A broken conservation alone is a *TokenLossError: a run that failed (its
// writer process died, say) may have lost tokens for the reason its error
// gives, but every other invariant still holds for it.
func (res *Result) CheckValid() error {
	for _, check := range []func() error{res.checkCounts, res.checkReaders, res.checkHists, res.checkTokens, res.checkWriters, res.checkPacing} {
		if err := check(); err != nil {
			return fmt.Errorf("invalid result: %w", err)
		}
	}
	return res.checkConserved()
}

// checkCounts: the intervals and the tail add up to the totals, and the
// totals' counts are consistent with one another.
func (res *Result) checkCounts() error {
	sum := res.Tail
	var secs float64
	for i, iv := range res.Intervals {
		switch {
		case iv.Index != i+1:
			return fmt.Errorf("interval %d is numbered %d", i+1, iv.Index)
		case !(iv.Seconds > 0):
			return fmt.Errorf("interval %d lasted %v s", iv.Index, iv.Seconds)
		case iv.EmptyCalls > iv.Calls:
			return fmt.Errorf("interval %d: %d empty calls of %d", iv.Index, iv.EmptyCalls, iv.Calls)
		}
		if err := iv.checkRates(); err != nil {
			return err
		}
		sum = sum.Add(iv.Counts)
		secs += iv.Seconds
	}
	if sum != res.Totals {
		return fmt.Errorf("intervals and tail add up to %+v, the totals are %+v", sum, res.Totals)
	}
	// Summation order aside, the intervals' lengths add up to no more than
	// the window's, which ends after the last interval's.
	if w := res.Elapsed.Seconds(); secs > w*(1+1e-9)+1e-9 {
		return fmt.Errorf("intervals last %v s in all, longer than the %v s window", secs, w)
	}
	t := res.Totals
	switch {
	case t.EmptyCalls > t.Calls:
		return fmt.Errorf("%d empty calls of %d", t.EmptyCalls, t.Calls)
	case t.Events+t.Spurious > t.Reads:
		return fmt.Errorf("%d events and %d spurious reports, but %d reads", t.Events, t.Spurious, t.Reads)
	case t.Events > t.Tokens:
		return fmt.Errorf("%d events carried %d tokens: fewer than one each", t.Events, t.Tokens)
	}
	return nil
}

// checkReaders: several readers' rows add up to the run's.
func (res *Result) checkReaders() error {
	if len(res.Readers) == 0 {
		for _, iv := range res.Intervals {
			if len(iv.Readers) > 0 {
				return fmt.Errorf("interval %d has %d readers' events, the result no reader rows", iv.Index, len(iv.Readers))
			}
		}
		return nil
	}
	var sum Counts
	var use Usage
	next := 0
	for k, rd := range res.Readers {
		first, pipes := next, rd.Pipes
		if res.Setup.Share { // every reader watches every pipe
			first, pipes = 0, res.Setup.Pipes
		}
		if rd.First != first || rd.Pipes != pipes || pipes <= 0 {
			return fmt.Errorf("reader %d watches pipes %d to %d, want from %d", k, rd.First, rd.First+rd.Pipes-1, first)
		}
		next += rd.Pipes
		sum = sum.Add(rd.Totals)
		use = use.Add(rd.Usage)
	}
	if res.Setup.Share {
		next /= len(res.Readers)
	}
	if next != res.Setup.Pipes {
		return fmt.Errorf("readers watch %d pipes, the run has %d", next, res.Setup.Pipes)
	}
	if want := res.Totals; sum.Ctl != 0 || sum.Add(Counts{Ctl: want.Ctl}) != want {
		return fmt.Errorf("readers' counts add up to %+v, the totals are %+v", sum, want)
	}
	if use != res.ReaderThread {
		return fmt.Errorf("readers' usage adds up to %+v, the reader threads' is %+v", use, res.ReaderThread)
	}
	for _, iv := range res.Intervals {
		var ev uint64
		for _, e := range iv.Readers {
			ev += e
		}
		if len(iv.Readers) != len(res.Readers) || ev != iv.Events {
			return fmt.Errorf("interval %d: %d readers' events add up to %d, the interval has %d", iv.Index, len(iv.Readers), ev, iv.Events)
		}
	}
	return nil
}

// checkHists: the histograms hold a value per call and per token.
func (res *Result) checkHists() error {
	t := res.Totals
	if h := &res.PerCall; h.Highest() > 0 && (h.Count() != t.Calls || h.Zeros() != t.EmptyCalls) {
		return fmt.Errorf("ready/call histogram holds %d calls, %d of them empty; the totals count %d, %d empty", h.Count(), h.Zeros(), t.Calls, t.EmptyCalls)
	}
	if h := &res.Latency; h.Highest() > 0 && h.Count() != t.Tokens {
		return fmt.Errorf("latency histogram holds %d tokens, %d received", h.Count(), t.Tokens)
	}
	return nil
}

// checkTokens: the token accounting adds up, for the run and its writers.
func (res *Result) checkTokens() error {
	tk := res.Tokens
	if tk.Received != res.Totals.Tokens {
		return fmt.Errorf("tokens received %d, the totals count %d", tk.Received, res.Totals.Tokens)
	}
	if tk.SentUnknown {
		if tk.Sent != 0 || tk.Lost != 0 {
			return fmt.Errorf("sent unknown, yet sent %d and lost %d", tk.Sent, tk.Lost)
		}
	} else if want := lost(tk.Sent, tk.Received, tk.Drained); tk.Lost != want {
		return fmt.Errorf("tokens lost %d, but sent %d - received %d - drained %d = %d", tk.Lost, tk.Sent, tk.Received, tk.Drained, want)
	}
	return nil
}

// checkWriters: several writers' rows add up to the run's, and each row's
// tokens to its loss.
func (res *Result) checkWriters() error {
	if len(res.Writers) == 0 {
		return nil
	}
	tk := res.Tokens
	var w Result // the writers' rows added up
	for _, x := range res.Writers {
		if want := lost(x.Sent, x.Received, x.Drained); x.Lost != want {
			return fmt.Errorf("writer %d: tokens lost %d, but sent %d - received %d - drained %d = %d", x.Index, x.Lost, x.Sent, x.Received, x.Drained, want)
		}
		w.Tokens.Sent += x.Sent
		w.Tokens.Full += x.Full
		w.WriterWrites += x.Writes
		w.WriterReads += x.Reads
		w.WriterWaits += x.Waits
		w.WriterThread = w.WriterThread.Add(x.Usage)
	}
	switch {
	case !tk.SentUnknown && (w.Tokens.Sent != tk.Sent || w.Tokens.Full != tk.Full):
		return fmt.Errorf("writers sent %d, %d writes full; the run %d, %d", w.Tokens.Sent, w.Tokens.Full, tk.Sent, tk.Full)
	case w.WriterWrites != res.WriterWrites || w.WriterReads != res.WriterReads || w.WriterWaits != res.WriterWaits:
		return fmt.Errorf("writers made %d writes, %d reads, %d waits; the run %d, %d, %d",
			w.WriterWrites, w.WriterReads, w.WriterWaits, res.WriterWrites, res.WriterReads, res.WriterWaits)
	case w.WriterThread != res.WriterThread:
		return fmt.Errorf("writers' usage adds up to %+v, the writer threads' is %+v", w.WriterThread, res.WriterThread)
	}
	return nil
}

// checkPacing: an open-loop run's pacing adds up.
func (res *Result) checkPacing() error {
	p, tk := res.Pacing, res.Tokens
	if p == nil || tk.SentUnknown {
		return nil
	}
	secs := p.Window.Seconds()
	switch {
	case tk.Sent > p.Due:
		return fmt.Errorf("pacing: %d tokens sent, %d due: sent before their time", tk.Sent, p.Due)
	case p.Backlog != p.Due-tk.Sent:
		return fmt.Errorf("pacing: backlog %d, but due %d - sent %d = %d", p.Backlog, p.Due, tk.Sent, p.Due-tk.Sent)
	case secs > 0 && (!near(p.SentRate, float64(tk.Sent)/secs) || !near(p.ReceivedRate, float64(tk.Received)/secs)):
		return fmt.Errorf("pacing: sent %v/s and received %v/s, but %d and %d tokens over %v s", p.SentRate, p.ReceivedRate, tk.Sent, tk.Received, secs)
	}
	return nil
}

// checkConserved: no token is lost, by the run or by any writer.
func (res *Result) checkConserved() error {
	for _, x := range res.Writers {
		if x.Lost != 0 {
			return &TokenLossError{Of: fmt.Sprintf("writer %d", x.Index),
				Tokens: Tokens{Sent: x.Sent, Received: x.Received, Drained: x.Drained, Lost: x.Lost, Full: x.Full}}
		}
	}
	if res.Tokens.Lost != 0 {
		return &TokenLossError{Tokens: res.Tokens}
	}
	return nil
}

// checkRates: an interval's rates are its counts over its length, and its
// samples per call its events over its non-empty calls (0 without one).
func (iv *Interval) checkRates() error {
	var spc float64
	if full := iv.Calls - iv.EmptyCalls; full > 0 {
		spc = float64(iv.Events) / float64(full)
	}
	for _, x := range []struct {
		what      string
		got, want float64
	}{
		{"evts/sec", iv.EventsPerSec, float64(iv.Events) / iv.Seconds},
		{"tokens/sec", iv.TokensPerSec, float64(iv.Tokens) / iv.Seconds},
		{"samples per call", iv.SamplesPerCall, spc},
	} {
		if !near(x.got, x.want) {
			return fmt.Errorf("interval %d: %s %v, its counts give %v", iv.Index, x.what, x.got, x.want)
		}
	}
	return nil
}

// near says whether a and b agree to a part in 1e12 (the order of a sum
// aside).
func near(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b))
}

func lost(sent, received, drained uint64) int64 {
	return int64(sent) - int64(received) - int64(drained)
}
