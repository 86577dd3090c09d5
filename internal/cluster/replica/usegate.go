package replica

import (
	"context"
	"errors"
	"sync"
)

// useGate counts the worker requests using an activation's store, so the
// activation closes its pool only once none is left: a request that took
// the store just before the activation was withdrawn must not find the
// pool closed under it.
type useGate struct {
	mu     sync.Mutex
	n      int
	closed bool
	idle   chan struct{} // closed once closed && n == 0
}

func newUseGate() *useGate { return &useGate{idle: make(chan struct{})} }

// acquire admits one more user, unless the gate is closing.
func (g *useGate) acquire() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.n++
	return true
}

func (g *useGate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n--
	if g.closed && g.n == 0 {
		close(g.idle)
	}
}

// close admits no one from now on and waits, until ctx ends, for the users
// already in.
func (g *useGate) close(ctx context.Context) error {
	g.mu.Lock()
	if !g.closed {
		g.closed = true
		if g.n == 0 {
			close(g.idle)
		}
	}
	g.mu.Unlock()
	select {
	case <-g.idle:
		return nil
	case <-ctx.Done():
		return errors.New("worker ingress: a request still used the database at the stop timeout")
	}
}
