// Package timeout measures how late each Linux readiness call wakes when
// nothing becomes ready and its timeout runs out: epoll_wait (whole
// milliseconds, so a request is rounded up), epoll_pwait2 (a timespec, Linux
// 5.11), ppoll, pselect6, and epoll_wait on a timerfd armed for the request.
// Overshoot is the monotonic time the call took less the time requested; the
// kernel never wakes early, so it is never negative.
//
// Samples of every mechanism and timeout are interleaved, round by round, so
// that drift in the machine's load touches them all alike. The package
// returns numbers (every overshoot and their quantiles, from gonum's stat)
// and writes its own text (text.go): a row per mechanism and timeout
// (Doc, the measurement's record). Prepare checks a Config (settings only)
// before any work, refusing with a pipebench.ConfigError written by the
// caller's pipebench.Names; the Prepared measurement's Run takes the
// caller's Observers apart.
//
// It makes its wait calls itself (sleepers.go) rather than through the
// backends' Wait (poll's ppoll, select's pselect6, epoll's epoll_pwait),
// because the Mechanism contract (pipebench.Mechanism) retries EINTR
// inside Wait with the time left: a sleep cut short by a signal would come back as one longer sample,
// where this experiment must see the EINTR to discard the sample and take
// it again. epoll_pwait2 and the timerfd are no backend's calls at all.
//
// Imports: pipebench, experiment/record, experiment/text, stats and
// internal helpers, as imports_test.go at the module's root allows (the
// table in docs/contributing.md shows the rules).
package timeout
