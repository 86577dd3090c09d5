package pgstore

import (
	"context"

	"github.com/google/uuid"

	"github.com/qinglong/qinglong/internal/core/qlerror"
)

// RefusalDatabaseBehind refuses a worker's step on a lease the database
// holds at an older version than the worker was told, or on an attempt
// newer than every attempt it holds: the database went back to an earlier
// point (a restore, a failover to a standby that lost commits), so the
// worker is ahead of it, not behind.
const RefusalDatabaseBehind qlerror.Reason = "database_behind"

// databaseWentBack is what a worker is told when the database is behind
// what it was told, and what to do.
const databaseWentBack = "the database went back to an earlier point than this worker was told (a restore, or a failover to a standby that lost commits), so it no longer knows this lease: stop the command; its result cannot be recorded"

// leaseVersionRefused is the refusal of a step presented at version
// theirs on a lease the database holds at version ours: stale when the
// worker is behind (a replay after a later renewal), the database behind
// when the worker is ahead — no replica ever told a worker a version the
// database did not hold when it committed.
func leaseVersionRefused(attemptID string, theirs, ours int64) error {
	if theirs > ours {
		return qlerror.New(qlerror.Conflict, "lease version %d of attempt %s is ahead of the database's version %d: %s", theirs, attemptID, ours, databaseWentBack).
			Because(RefusalDatabaseBehind, "attempt", attemptID, "version", theirs, "database_version", ours)
	}
	return qlerror.New(qlerror.Conflict, "lease version %d of attempt %s is stale: the lease is at version %d", theirs, attemptID, ours)
}

// unknownAttempt is the refusal of a step on an attempt the database does
// not hold: the database is behind when the id is newer than every attempt
// it holds (attempt ids are UUIDv7, minted in order), else the id is one
// that never existed or that retention removed.
func unknownAttempt(ctx context.Context, q querier, attemptID string) error {
	if _, err := uuid.Parse(attemptID); err != nil {
		return notFoundAttempt(attemptID)
	}
	var newer bool
	if err := q.QueryRow(ctx, sqlAttemptNewerThanAll, attemptID).Scan(&newer); err != nil {
		return err
	}
	if !newer {
		return notFoundAttempt(attemptID)
	}
	return qlerror.New(qlerror.NotFound, "attempt %s is newer than every attempt the database holds: %s", attemptID, databaseWentBack).
		Because(RefusalDatabaseBehind, "attempt", attemptID)
}

// markRolledBack records, after a step was refused because its worker is
// ahead of the database on a started lease, that the attempt's end is the
// database's going back: the sweep then ends it database_rolled_back when
// its lease runs out, not lease_expired ("its worker's lease ran out"),
// which would blame the worker. The lease itself is left to run out, as
// the fence requires of a started attempt. A failed mark leaves the
// lease_expired and is not the step's failure.
func (r *Runtime) markRolledBack(ctx context.Context, refused error, attemptID, digest string, version int64) {
	if qlerror.ReasonOf(refused) != RefusalDatabaseBehind {
		return
	}
	_, _ = r.pool.Exec(ctx, sqlAttemptMarkRolledBack, attemptID, digest, version)
}
