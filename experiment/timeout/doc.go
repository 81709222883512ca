// Package timeout measures how late each Linux readiness call wakes when
// nothing becomes ready and its timeout runs out: epoll_wait (whole
// milliseconds, so a request is rounded up), epoll_pwait2 (a timespec, Linux
// 5.11), ppoll, pselect6, and epoll_wait on a timerfd armed for the request.
// Overshoot is the monotonic time the call took less the time requested; the
// kernel never wakes early, so it is never negative.
//
// Samples of every mechanism and timeout are interleaved, round by round, so
// that drift in the machine's load touches them all alike. The package
// returns numbers (every overshoot and their quantiles, from gonum's stat);
// it prints nothing: stats/report formats them.
//
// Imports: as imports_test.go at the module's root allows (the table in
// docs/contributing.md shows the rules).
package timeout
