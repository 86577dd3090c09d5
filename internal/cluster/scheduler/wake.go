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
	if sum.Full(c.cfg.PageSize) || sum.Next == nil {
		return 0, false
	}
	// The wait is schedule.NextDue.Wait: the local instant at which the
	// database clock reaches the due time (by the offset estimated from the
	// last claims), plus the spread, bounded by the cadence. Which
	// occurrence is due and whether it is admitted are decided by the
	// database clock at the next claim alone.
	next := *sum.Next
	next.ClockOffsetMs = c.offsets.estimate(next)
	spread := wakeSpread()
	if left := next.LocalAt().Sub(c.now()); c.cfg.ClaimAhead > 0 && left > 0 && left <= c.cfg.Cadence+c.cfg.ClaimAhead {
		// Wake a claim-ahead before the instant (ahead.go).
		c.target = &next
		return max(left-c.cfg.ClaimAhead, 0) + spread, true
	}
	return next.Wait(c.now(), c.cfg.Cadence, spread), true
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
