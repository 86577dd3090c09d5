package clusterserve

import (
	"sync/atomic"

	"github.com/qinglong/qinglong/internal/availability"
)

// Readiness reasons, as /readyz reports them.
const (
	ReasonStarting            = "starting"
	ReasonDraining            = "draining"
	ReasonDatabaseUnavailable = "database_unavailable"
)

type phase int32

const (
	phaseStarting phase = iota
	phaseOpen
	phaseDraining
)

// admission is the replica's request admission: closed while starting,
// open once the scheduler runs, closed again for good when draining. It
// only moves forward.
type admission struct {
	phase atomic.Int32
	latch *availability.Latch
}

func (a *admission) open()  { a.phase.CompareAndSwap(int32(phaseStarting), int32(phaseOpen)) }
func (a *admission) close() { a.phase.Store(int32(phaseDraining)) }

// ready is the replica's readiness: admission open and the database never
// lost since the process started.
func (a *admission) ready() (bool, string) {
	switch {
	case !a.latch.Available():
		return false, ReasonDatabaseUnavailable
	case phase(a.phase.Load()) == phaseStarting:
		return false, ReasonStarting
	case phase(a.phase.Load()) == phaseDraining:
		return false, ReasonDraining
	}
	return true, ""
}
