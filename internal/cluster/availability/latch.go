// Package availability holds the database-availability latch of one
// activation of a cluster replica.
//
// An activation is one pass of pool → readiness → startup recovery →
// scheduler over a fresh connection pool. Once it has seen its database
// connection fail, nothing it holds can be trusted to say what the
// database saw last (an admission's outcome may be unknown, a pool may
// quietly reconnect), so its latch only ever moves one way, available →
// unavailable. The replica's owner waits on Lost, stops that activation
// and builds a fresh one with a latch of its own; readiness reports the
// replica ready only through a live activation whose latch still holds.
package availability

import (
	"errors"
	"sync/atomic"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// Latch records the first database-unavailable error an activation
// observes.
type Latch struct {
	lost     atomic.Bool
	lostChan chan struct{}
}

// New returns an available latch.
func New() *Latch { return &Latch{lostChan: make(chan struct{})} }

// Observe trips the latch when err wraps schedule.ErrUnavailable. It reports
// whether this call tripped it, so the caller logs the transition once.
func (l *Latch) Observe(err error) (tripped bool) {
	if err == nil || !errors.Is(err, schedule.ErrUnavailable) {
		return false
	}
	if !l.lost.CompareAndSwap(false, true) {
		return false
	}
	close(l.lostChan)
	return true
}

// Available reports whether no unavailable error has been observed.
func (l *Latch) Available() bool { return !l.lost.Load() }

// Lost is closed when the latch trips.
func (l *Latch) Lost() <-chan struct{} { return l.lostChan }
