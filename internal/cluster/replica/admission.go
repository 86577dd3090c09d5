package replica

import (
	"sync/atomic"

	"github.com/qinglong/qinglong/internal/cluster/pgstore"
)

// Readiness reasons, as /readyz reports them.
const (
	ReasonStarting            = "starting"
	ReasonDraining            = "draining"
	ReasonDatabaseUnavailable = "database_unavailable"
	// ReasonHeldForWorkers: the activation holds admission and dispatch
	// for one run lease, since the database shows no replica running for
	// longer than that while workers may still run commands it does not
	// know (see holdForWorkers).
	ReasonHeldForWorkers = "held_for_workers"
)

type phase int32

const (
	phaseStarting phase = iota
	phaseRunning
	phaseDraining
)

// admission is the replica's request admission: closed while starting,
// open while a live activation holds the database, closed while a lost
// database is re-activated, and closed for good once draining. The phase
// only moves forward; the activation comes and goes.
type admission struct {
	phase atomic.Int32
	live  atomic.Pointer[activation]
	// held is set while an activation waits out its hold for workers.
	held atomic.Bool
	// holding is that activation's runtime meanwhile, through which API
	// tokens alone are checked (liveReaders.tokenRuntime).
	holding atomic.Pointer[pgstore.Runtime]
}

// open admits requests through act, unless the replica is draining; act is
// recorded either way, for the ordered stop to release.
func (a *admission) open(act *activation) {
	a.live.Store(act)
	a.phase.CompareAndSwap(int32(phaseStarting), int32(phaseRunning))
}

// withdraw stops admitting through the current activation.
func (a *admission) withdraw() { a.live.Store(nil) }

// close stops admitting for good; opened says whether admission had
// opened at all (a startup that failed never opened it).
func (a *admission) close() (opened bool) {
	return phase(a.phase.Swap(int32(phaseDraining))) == phaseRunning
}

// current is the live activation, or nil between activations.
func (a *admission) current() *activation { return a.live.Load() }

// ready is the replica's readiness: admission open through an activation
// that has not lost its database. The latch is read here, not only by the
// supervisor, so /readyz turns 503 the instant the loss is seen.
func (a *admission) ready() (bool, string) {
	p := phase(a.phase.Load())
	switch {
	case p == phaseDraining:
		return false, ReasonDraining
	case a.held.Load():
		return false, ReasonHeldForWorkers
	case p == phaseStarting:
		return false, ReasonStarting
	}
	if act := a.live.Load(); act == nil || !act.latch.Available() {
		return false, ReasonDatabaseUnavailable
	}
	return true, ""
}
