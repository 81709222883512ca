package lifecycle

import "sync"

// Ending is what ends a measurement: the first failure, kept (Err), and the
// end itself, which closes Done once. Its zero value is ready; it is safe
// for concurrent use.
type Ending struct {
	mu    sync.Mutex
	done  chan struct{}
	ended bool
	err   error
}

// Fail records err unless a failure is recorded already, and ends.
func (e *Ending) Fail(err error) {
	e.Record(err)
	e.End(nil)
}

// Record keeps err as the failure unless one is kept already.
func (e *Ending) Record(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.err == nil {
		e.err = err
	}
}

// Replace keeps err as the failure in place of any before it: a cause found
// later that explains the first failure better.
func (e *Ending) Replace(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.err = err
}

// Err is the failure kept, nil if none.
func (e *Ending) Err() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}

// End ends the measurement: the first call runs first (when not nil; it
// must not call h) and then closes Done; later calls do nothing.
func (e *Ending) End(first func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ended {
		return
	}
	e.ended = true
	if first != nil {
		first()
	}
	close(e.ch())
}

// Done is closed once the measurement has ended.
func (e *Ending) Done() <-chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.ch()
}

// ch makes the channel on first use; the caller holds mu.
func (e *Ending) ch() chan struct{} {
	if e.done == nil {
		e.done = make(chan struct{})
	}
	return e.done
}
