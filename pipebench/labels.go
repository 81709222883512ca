package pipebench

import (
	"context"
	"runtime/pprof"
)

// Roles of the goroutines that carry pprof labels (Observers.Labels).
const (
	RoleReader = "reader"
	RoleWriter = "writer"
	// RoleSelf is the one thread of self mode, reading and writing.
	RoleSelf = "reader+writer"
)

// labelGoroutine sets the run's pprof labels and role on the calling
// goroutine, for the rest of its life; without Observers.Labels it does
// nothing.
func (r *run) labelGoroutine(role string) {
	if r.hooks.Labels == nil {
		return
	}
	kv := make([]string, 0, 2*len(r.hooks.Labels)+4)
	for k, v := range r.hooks.Labels {
		kv = append(kv, k, v)
	}
	kv = append(kv, "role", role, "writer", r.plan.Writer.String())
	pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels(kv...)))
}

// readerRole is the role of the reading goroutine.
func (r *run) readerRole() string {
	if r.plan.Writer == WriterSelf {
		return RoleSelf
	}
	return RoleReader
}
