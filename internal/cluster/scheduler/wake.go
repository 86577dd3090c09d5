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

// wakeWait is how long the loop waits after a round that did not ask for
// the next round at once: until the local instant at which the database
// clock reaches next.AtMs (by the offset measured at the claim), plus the
// spread, and never more than the cadence. now is the local wall clock.
// The offset is measured afresh at every claim, so a local clock that is
// merely wrong cancels out; one stepped between the claim and the wake-up
// moves only this wait — never below the spread, so a clock stepped ahead
// makes a replica poll every few milliseconds until the row is due, not
// spin, and never beyond the cadence. Which occurrence is due and whether
// it is admitted are decided by the database clock at the next claim
// alone.
func wakeWait(next *schedule.NextDue, now time.Time, cadence, spread time.Duration) time.Duration {
	if next == nil {
		return cadence
	}
	return min(max(next.LocalAt().Sub(now), 0)+spread, cadence)
}

// planWake tells the loop when to start the next round after sum. A full
// page that made progress starts the next round at once anyway; a full page
// that made none keeps the cadence, so rows that keep failing are not
// retried as fast as the database answers.
func (c *Coordinator) planWake(sum schedule.Summary) {
	if sum.Full(c.cfg.PageSize) || sum.Next == nil {
		return
	}
	c.loop.WakeWithin(wakeWait(sum.Next, c.now(), c.cfg.Cadence, wakeSpread()))
}
