package lifecycle

import "sync"

// Halt is what ends a measurement: the first failure, kept (Err), and the
// end itself, which closes Done once. Its zero value is ready; it is safe
// for concurrent use.
type Halt struct {
	mu    sync.Mutex
	done  chan struct{}
	ended bool
	err   error
}

// Fail records err unless a failure is recorded already, and ends.
func (h *Halt) Fail(err error) {
	h.Record(err)
	h.End(nil)
}

// Record keeps err as the failure unless one is kept already.
func (h *Halt) Record(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.err == nil {
		h.err = err
	}
}

// Replace keeps err as the failure in place of any before it: a cause found
// later that explains the first failure better.
func (h *Halt) Replace(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.err = err
}

// Err is the failure kept, nil if none.
func (h *Halt) Err() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}

// End ends the measurement: the first call runs first (when not nil; it
// must not call h) and then closes Done; later calls do nothing.
func (h *Halt) End(first func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ended {
		return
	}
	h.ended = true
	if first != nil {
		first()
	}
	close(h.ch())
}

// Done is closed once the measurement has ended.
func (h *Halt) Done() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ch()
}

// ch makes the channel on first use; the caller holds mu.
func (h *Halt) ch() chan struct{} {
	if h.done == nil {
		h.done = make(chan struct{})
	}
	return h.done
}
