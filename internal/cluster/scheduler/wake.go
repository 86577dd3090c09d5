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

// firstLookAgain is the first wait after a claim that found nothing and
// learned no next instant; each such claim in a row doubles it, up to a
// quarter of the cadence for two cadences after the replica last knew an
// instant, up to the cadence after that.
const firstLookAgain = 20 * time.Millisecond

// wakeSpread draws one wake's spread from [minWakeSpread, maxWakeSpread).
func wakeSpread() time.Duration {
	return minWakeSpread + rand.N(maxWakeSpread-minWakeSpread) //nolint:gosec // G404: spreading wake-ups, not security
}

// planWake tells the loop when to start the next round after sum.
func (c *Coordinator) planWake(sum schedule.Summary) {
	if wait, ok := c.wakeAfter(sum); ok {
		c.loop.WakeWithin(wait)
	}
}

// wakeAfter is the wait planWake asks for after sum, and false when the
// loop's own rule applies. A full page that made progress starts the next
// round at once anyway; a full page that made none keeps the cadence, so
// rows that keep failing are not retried as fast as the database answers.
func (c *Coordinator) wakeAfter(sum schedule.Summary) (time.Duration, bool) {
	if sum.Full(c.cfg.PageSize) {
		return 0, false
	}
	if sum.Next == nil {
		if !sum.Horizon || sum.Taken > 0 {
			return 0, false
		}
		// The claim took nothing and no unclaimed row falls due later:
		// typically every row is held by replicas that claimed before this
		// one, and a held row's next cursor is written only when its holder
		// commits. Waiting the cadence from here would wake this replica
		// after the others at every following instant, where it would again
		// find every row held; so it looks again soon, then less and less
		// often. While it knew an instant lately the holders are most
		// likely committing, and a wait that grew past their commit would
		// skip the next instant and find every row held again: it looks
		// again at least four times a cadence. An idle cluster settles on
		// the cadence.
		ceiling := c.cfg.Cadence
		if !c.knewAt.IsZero() && time.Since(c.knewAt) < 2*c.cfg.Cadence {
			ceiling = c.cfg.Cadence / 4
		}
		c.lookAgain = min(max(2*c.lookAgain, firstLookAgain), ceiling)
		return c.lookAgain, true
	}
	c.lookAgain, c.knewAt = 0, time.Now()
	// The wait is schedule.NextDue.Wait: the local instant at which the
	// database clock reaches the due time (by the offset estimated from the
	// last claims), plus the spread, bounded by the cadence. Which
	// occurrence is due and whether it is admitted are decided by the
	// database clock at the next claim alone.
	next := *sum.Next
	next.ClockOffsetMs = c.offsets.estimate(next)
	return next.Wait(c.now(), c.cfg.Cadence, wakeSpread()), true
}

// offsetBounds is how many claims' lower bounds of the clock offset the
// estimate keeps: about as many seconds at one round per second.
const offsetBounds = 8

// clockOffsets estimates the database-minus-local clock offset from the
// ranges the last claims bracketed (schedule.NextDue): the tightest of
// their lower bounds — a claim whose answer came back late says little,
// and alone would make the replica wake late by the delay — but never
// outside the latest claim's range, which a stepped local clock cannot
// have invalidated. The estimate only moves a wake-up.
type clockOffsets struct {
	low  [offsetBounds]int64
	n, i int
}

// estimate records next's range and returns the offset to wake by.
func (o *clockOffsets) estimate(next schedule.NextDue) int64 {
	o.low[o.i] = next.ClockOffsetMs
	o.i = (o.i + 1) % offsetBounds
	o.n = min(o.n+1, offsetBounds)
	best := next.ClockOffsetMs
	for _, low := range o.low[:o.n] {
		best = max(best, low)
	}
	return min(best, next.ClockOffsetMaxMs)
}
