package scheduler

import (
	"math/rand/v2"
	"time"

	"github.com/qinglong/qinglong/internal/core/schedule"
)

// The spread added to every wake at a due instant: replicas that learned
// the same instant wake a few milliseconds apart instead of all claiming
// the same first row at once (SKIP LOCKED makes that safe but wasteful),
// and the first of them still claims within tens of milliseconds.
const (
	minWakeSpread = 2 * time.Millisecond
	maxWakeSpread = 20 * time.Millisecond
)

// wakeSpread draws one wake's spread from [minWakeSpread, maxWakeSpread).
func wakeSpread() time.Duration {
	return minWakeSpread + rand.N(maxWakeSpread-minWakeSpread) //nolint:gosec // G404: spreading wake-ups, not security
}

// planWake tells the loop when to start the next round after sum. A full
// page that made progress starts the next round at once anyway; a full page
// that made none keeps the cadence, so rows that keep failing are not
// retried as fast as the database answers.
func (c *Coordinator) planWake(sum schedule.Summary) {
	if sum.Full(c.cfg.PageSize) || sum.Next == nil {
		return
	}
	// The wait is schedule.NextDue.Wait: the local instant at which the
	// database clock reaches the due time (by the offset measured at the
	// claim), plus the spread, bounded by the cadence. Which occurrence is
	// due and whether it is admitted are decided by the database clock at
	// the next claim alone.
	c.loop.WakeWithin(sum.Next.Wait(c.now(), c.cfg.Cadence, wakeSpread()))
}
