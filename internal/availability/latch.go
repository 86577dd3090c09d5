// Package availability holds the replica's database-availability latch.
//
// A cluster replica that has seen its database connection fail must not
// report itself ready again on its own: a pool that quietly reconnects could
// make /readyz flap while the operator is still looking at the outage. So the
// latch only ever moves one way, available → unavailable, and a restart is
// the only way back.
package availability

import (
	"errors"
	"sync/atomic"

	"github.com/qinglong/qinglong/internal/schedule"
)

// Latch records the first database-unavailable error a replica observes.
type Latch struct {
	lost atomic.Bool
}

// New returns an available latch.
func New() *Latch { return &Latch{} }

// Observe trips the latch when err wraps schedule.ErrUnavailable. It reports
// whether this call tripped it, so the caller logs the transition once.
func (l *Latch) Observe(err error) (tripped bool) {
	if err == nil || !errors.Is(err, schedule.ErrUnavailable) {
		return false
	}
	return l.lost.CompareAndSwap(false, true)
}

// Available reports whether no unavailable error has been observed.
func (l *Latch) Available() bool { return !l.lost.Load() }
