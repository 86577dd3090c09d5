package agent

import "sync"

// output holds a command's (masked) output until it is sent. It never
// blocks the command: beyond limit unsent bytes, output is dropped (the
// replica keeps at most its log cap anyway), and after close everything
// is dropped.
type output struct {
	mu     sync.Mutex
	buf    []byte
	limit  int
	closed bool
	// full is signalled when a whole chunk is waiting.
	full chan struct{}
}

func newOutput(limit int) *output {
	return &output{limit: limit, full: make(chan struct{}, 1)}
}

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return len(p), nil
	}
	keep := min(len(p), o.limit-len(o.buf))
	if keep > 0 {
		o.buf = append(o.buf, p[:keep]...)
	}
	if len(o.buf) >= chunkSize {
		select {
		case o.full <- struct{}{}:
		default:
		}
	}
	return len(p), nil
}

// pending is how many bytes wait to be sent.
func (o *output) pending() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.buf)
}

// peek returns a copy of the first n bytes waiting (at most).
func (o *output) peek(n int) []byte {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]byte(nil), o.buf[:min(n, len(o.buf))]...)
}

// drop forgets the first n bytes: they were sent.
func (o *output) drop(n int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.buf = append(o.buf[:0], o.buf[n:]...)
}

// close drops what waits and everything written later.
func (o *output) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closed = true
	o.buf = nil
}
