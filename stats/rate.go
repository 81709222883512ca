package stats

// PerEvent returns count / events, the cost of one event in whatever count
// counts (readiness calls, syscalls, context switches). It returns 0 when
// events is 0: a run without events has no per-event cost to report, and
// JSON cannot carry the NaN or infinity that the division would give.
func PerEvent(count, events uint64) float64 {
	if events == 0 {
		return 0
	}
	return float64(count) / float64(events)
}

// Rate returns count / seconds, e.g. evts/sec of one interval. It returns 0
// when seconds is not positive (or is NaN), for the same reason as PerEvent.
func Rate(count uint64, seconds float64) float64 {
	if !(seconds > 0) {
		return 0
	}
	return float64(count) / seconds
}
