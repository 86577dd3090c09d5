package scheduler

import (
	"log/slog"
	"time"
)

// Stable diagnostic codes of the cluster scheduler's lifecycle; a round's
// own records carry the codes every profile shares (schedule.CodeRound and
// the others). Operators and tests match on these, never on the message
// text.
const (
	CodeStarted       = "scheduler.started"
	CodeStopped       = "scheduler.stopped"
	CodeUnavailable   = "scheduler.database_unavailable"
	CodeDrainTimedOut = "scheduler.drain_timeout"
	// CodeClaimedAhead (debug) reports the pages claimed ahead of a due
	// instant: how many rows, and how long before the instant the last
	// claim ended.
	CodeClaimedAhead = "scheduler.claimed_ahead"
	// CodeReleased reports the claims a stop gave back (release.go), and
	// CodeReleaseFailed a release that failed: those rows wait out their
	// lease instead.
	CodeReleased      = "scheduler.claims_released"
	CodeReleaseFailed = "scheduler.release_failed"
)

// poolStater is a store that reports its connection pool's counters
// since it opened (the cluster's runtime store does).
type poolStater interface {
	PoolCounters() (waits int64, waited time.Duration, opened int64)
}

// poolAttrs are a pool's counters, added to every round record: a round
// that waited for a connection, or opened one (paying the connection's
// setup and authentication), shows as a step in them.
func poolAttrs(ps poolStater) []any {
	waits, waited, opened := ps.PoolCounters()
	return []any{slog.Int64("pool_waits", waits), slog.Int64("pool_waited_ms", waited.Milliseconds()), slog.Int64("pool_opened", opened)}
}
