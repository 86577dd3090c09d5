package pgstore

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/run"
)

// MaxSweepPage bounds one page of each kind of SweepLeases.
const MaxSweepPage = 1000

// SweepResult counts what one SweepLeases call changed.
type SweepResult struct {
	// Released: unstarted grants whose lease passed, offered again.
	Released int
	// Lost: started attempts whose lease passed (ended lost, or timed out
	// when their deadline had passed); of those, Retried got Attempt N + 1
	// and RunsLost ended their Run lost.
	Lost, Retried, RunsLost int
	// Requeued: retry_wait Runs whose backoff passed, queued again.
	Requeued int
	// NextRequeue is the time, in database time from the requeue, until
	// the earliest backoff still running ends; zero when none runs. The
	// caller sweeps again then, so a retry waits its backoff and no more.
	NextRequeue time.Duration
	// SessionsExpired: live sessions whose lease passed, each of them in
	// ExpiredSessions.
	SessionsExpired int
	ExpiredSessions []ExpiredSession
	// NotedWaiting: queued Runs no live worker could take (none carries
	// their placement labels, or none takes work) that got their one
	// run.waiting event.
	NotedWaiting int
	// Finished counts the Runs this call finished (run.Finishes): those
	// of the started attempts it ended that got no retry — lost, timed
	// out, or cancelled when a cancel had been asked. A Run another
	// replica's sweep finished first is not among them: SKIP LOCKED and
	// the attempt's state give each expired attempt to one sweep.
	Finished run.FinishCounts
	// Ended names each Run this call finished, with how its attempt
	// ended, for the replica's run.finished line: as Finished, a Run whose
	// lost attempt was retried has not finished and is not among them.
	Ended []EndedRun
}

// EndedRun is a Run a sweep finished: its state, the Run and the attempt
// whose lease ran out.
type EndedRun struct {
	State   run.State
	Run     run.Identity
	Attempt run.Attempt
}

// Changed reports whether the sweep changed anything. NextRequeue is a
// reading, not a change; Retried, RunsLost and Finished count among Lost,
// and ExpiredSessions among SessionsExpired.
func (r SweepResult) Changed() bool {
	return r.Released+r.Lost+r.Requeued+r.SessionsExpired+r.NotedWaiting > 0
}

// SweepLeases runs one bounded page (at most limit rows, SKIP LOCKED) of
// each kind of expiry, each in its own short transaction, all in database
// time: unstarted grants released; started attempts lost, then retried or
// their Run lost; retry_wait Runs whose backoff passed queued; expired
// sessions marked; and queued Runs no live worker could take given their
// run.waiting event (once per Run). Replicas may sweep at once: they split the rows. On an
// error, the result still counts what the transactions before it
// committed.
func (r *Runtime) SweepLeases(ctx context.Context, limit int) (SweepResult, error) {
	var res SweepResult
	if limit < 1 || limit > MaxSweepPage {
		return res, qlerror.New(qlerror.Invalid, "sweep page size %d is outside 1–%d", limit, MaxSweepPage)
	}
	err := queryNamed1(ctx, r, sqlSweepRelease, sweepReleaseParams, pgx.StrictNamedArgs{"limit": limit, "event": run.EventQueued}, &res.Released)
	if err != nil {
		return res, mapErr(err, "releasing expired grants")
	}
	var started SweepResult
	if err := inTx(ctx, r.pool, func(tx pgx.Tx) error {
		var err error
		started, err = sweepStarted(ctx, tx, limit)
		return err
	}); err != nil {
		return res, mapErr(err, "ending expired attempts")
	}
	res.Lost, res.Retried, res.RunsLost, res.Finished, res.Ended = started.Lost, started.Retried, started.RunsLost, started.Finished, started.Ended
	var nextMs *int64
	err = queryRowNamed(ctx, r.pool, sqlSweepRequeue, sweepRequeueParams, pgx.StrictNamedArgs{"limit": limit, "event": run.EventQueued}).
		Scan(&res.Requeued, &nextMs)
	if err != nil {
		return res, mapErr(err, "requeueing runs after their backoff")
	}
	if nextMs != nil {
		res.NextRequeue = time.Duration(*nextMs) * time.Millisecond
	}
	res.ExpiredSessions, err = sweepSessions(ctx, r, limit)
	if err != nil {
		return res, mapErr(err, "expiring worker sessions")
	}
	res.SessionsExpired = len(res.ExpiredSessions)
	err = queryNamed1(ctx, r, sqlSweepNoteWaiting, sweepNoteWaitingParams,
		pgx.StrictNamedArgs{"limit": limit, "revisions": MaxSweepPage, "grace_ms": WaitingNoteGrace.Milliseconds(), "event": run.EventWaiting},
		&res.NotedWaiting)
	if err != nil {
		return res, mapErr(err, "noting the queued Runs no worker can take")
	}
	return res, nil
}

func queryNamed1(ctx context.Context, r *Runtime, sql string, p sqlParams, named pgx.StrictNamedArgs, into *int) error {
	return queryRowNamed(ctx, r.pool, sql, p, named).Scan(into)
}

// Error codes the store records on the attempts it ends itself.
const (
	// ErrorCodeWorkerRevoked ends an attempt lost because its worker's
	// credential was revoked while the command ran.
	ErrorCodeWorkerRevoked = "worker_revoked"
	// ErrorCodeLeaseExpired ends an attempt lost because its worker
	// stopped renewing the lease; ErrorCodeLeaseExpiredAfterTimeout one
	// timed out, its lease having run out at or after its deadline.
	ErrorCodeLeaseExpired             = "lease_expired"
	ErrorCodeLeaseExpiredAfterTimeout = "lease_expired_after_timeout"
	// ErrorCodeLeaseExpiredUnswept ends an attempt lost whose lease no
	// replica swept until SweptLateAfter or more after it ran out: the
	// replicas could not reach the database then (or none ran), so they
	// refused the worker's renewals as well, whatever the worker did.
	ErrorCodeLeaseExpiredUnswept = "lease_expired_replicas_unavailable"
	// ErrorCodeDatabaseRolledBack ends an attempt lost whose worker
	// presented a lease version ahead of the database's: the database went
	// back, and the worker, refused, killed the command.
	ErrorCodeDatabaseRolledBack = "database_rolled_back"
	// ErrorCodeCancelled ends the attempt of a Run cancelled before its
	// worker reported it ended.
	ErrorCodeCancelled = "cancelled"
)

// WaitingNoteGrace is how long, in database time, a Run must have been
// queued before the sweep notes that no worker could take it: a worker
// that restarts ends its session and registers a new one a few seconds
// later, and the Runs admitted in that gap are taken once it is back, so
// a note written at once would stay in their history saying no worker
// could take them. The grace covers that gap plus a sweep's cadence
// (MaxSweepEvery), so such a Run is taken before a sweep may note it.
const WaitingNoteGrace = 10 * time.Second

// MaxSweepEvery is the longest a replica with its database waits between
// two sweeps, whatever its run lease: an expired lease is acted on within
// it.
const MaxSweepEvery = 5 * time.Second

// SweptLateAfter is how long after a lease ran out, in database time, a
// sweep that ends it proves that no replica could sweep meanwhile: twice
// the longest cadence and a second for the round itself. No replica swept
// for that long only when none reached the database (an outage, a
// partition between the replicas and it) or none ran; either way every
// renewal sent meanwhile was refused, so the lost attempt is not the
// worker's doing. Which came first, the outage or the worker's own end,
// the database cannot tell: a worker that crashed during the outage is
// recorded the same, and an outage that ended less than this after the
// lease ran out (or before it) leaves a lease_expired.
const SweptLateAfter = 2*MaxSweepEvery + time.Second

// endedWhenLastHeard says a Run in state with its last attempt's
// errorCode ended lost by the sweep (sweepStarted), which stamps the
// attempt ended when its worker was last heard from for it: the Run's
// running time counts until then, a lower bound of the command's.
func endedWhenLastHeard(state run.State, errorCode string) bool {
	switch errorCode {
	case ErrorCodeLeaseExpired, ErrorCodeLeaseExpiredUnswept, ErrorCodeWorkerRevoked, ErrorCodeDatabaseRolledBack:
		return state == run.Lost
	}
	return false
}

// sweepStarted ends one page of started attempts whose lease passed:
// each becomes lost — or timed out, when its lease ran out at or after its
// deadline and no cancel was asked before that deadline: the worker was
// told to stop and its renewals ran out — then its Run is cancelled when a
// cancel was asked of a lost attempt (run.EndAfterCancel: the attempt
// stays lost, as nothing says the command heard the cancel), retried (the
// attempt's end in the policy and attempts left, never after a cancel) or
// ended like the attempt: a cancel asked once the deadline had passed
// leaves Run and attempt timed_out. Each attempt ends when its worker was
// last heard from for it (a timed-out one no earlier than its deadline),
// not when its lease ran out nor when the sweep came: the command ran
// until then at least, and a lease later overstates it. A Run it ends is
// stamped then too, never before the Run's latest event; a retry's wait
// is stamped now, its backoff running from the decision. It fills the
// Lost, Retried, RunsLost, Finished and Ended of a SweepResult.
func sweepStarted(ctx context.Context, tx pgx.Tx, limit int) (out SweepResult, err error) {
	rows, err := tx.Query(ctx, sqlSweepStartedPage, limit)
	if err != nil {
		return out, err
	}
	type expired struct {
		leaseFacts
		revoked bool
		// expiredAtMs is when the lease ran out, in database time.
		expiredAtMs int64
		// pastDeadline: the lease ran out at or after the deadline. Not the
		// sweep's own time, which lags behind the expiry when no replica
		// swept for a while: a worker that vanished within the timeout
		// would then read as one whose command outran it.
		pastDeadline bool
		// heardAtMs is the last time its worker was heard from for it (its
		// start, a renewal, a log append) and lastEventAtMs the time of its
		// Run's latest event, both in database time.
		heardAtMs, lastEventAtMs int64
		// rolledBack: a worker presented a lease version ahead of the
		// database's (markRolledBack).
		rolledBack bool
	}
	var page []expired
	var f expired
	var state, runState string
	_, err = pgx.ForEachRow(rows, []any{&f.AttemptID, &f.RunID, &f.Number, &state, &f.DeadlineAtMs, &runState, &f.RunVersion, &f.CancelAtMs,
		&f.Retry.MaxAttempts, &f.Retry.BackoffMs, &f.Retry.On, &f.NowMs, &f.revoked, &f.pastDeadline, &f.expiredAtMs, &f.heardAtMs, &f.lastEventAtMs, &f.rolledBack}, func() error {
		f.State, f.RunState = run.AttemptState(state), run.State(runState)
		page = append(page, f)
		return nil
	})
	if err != nil {
		return out, err
	}
	for _, x := range page {
		f := x.leaseFacts
		end, res := run.AttemptLost, attemptResult{errorCode: ErrorCodeLeaseExpired,
			errorMessage: run.LeaseExpiredMessage}
		late := time.Duration(f.NowMs-x.expiredAtMs) * time.Millisecond
		switch {
		case x.rolledBack:
			res = attemptResult{errorCode: ErrorCodeDatabaseRolledBack, errorMessage: run.DatabaseRolledBackMessage}
		case x.revoked:
			res = attemptResult{errorCode: ErrorCodeWorkerRevoked,
				errorMessage: run.WorkerRevokedMessage}
		case late >= SweptLateAfter:
			res = attemptResult{errorCode: ErrorCodeLeaseExpiredUnswept, errorMessage: run.LeaseUnsweptMessage(late.Round(time.Second), MaxSweepEvery)}
		}
		endedAtMs := x.heardAtMs
		if x.pastDeadline && !x.rolledBack && !run.CancelCameFirst(f.CancelAtMs, f.DeadlineAtMs) {
			end, res = run.AttemptTimedOut, attemptResult{errorCode: ErrorCodeLeaseExpiredAfterTimeout,
				errorMessage: run.LeaseExpiredAfterTimeoutMessage}
			// Its worker held the lease when the timeout passed, so the
			// command ran at least until then.
			endedAtMs = max(endedAtMs, *f.DeadlineAtMs)
		}
		res.endedAtMs = min(endedAtMs, f.NowMs)
		if !f.retries(run.EndAfterCancel(end, f.CancelAtMs, f.DeadlineAtMs)) {
			// A Run that ends with its attempt ends then too; one retried
			// waits its backoff from now, when the retry was decided.
			res.runAtMs = min(max(res.endedAtMs, x.lastEventAtMs), f.NowMs)
		}
		if err := endAttempt(ctx, tx, f, end, res); err != nil {
			return out, err
		}
		out.Lost++
		if f.RunState != run.Running {
			continue
		}
		state, fresh, err := settleRun(ctx, tx, f, run.EndAfterCancel(end, f.CancelAtMs, f.DeadlineAtMs), res, WorkerIdentity{})
		if err != nil {
			return out, err
		}
		if fresh {
			out.Finished.Add(state)
			e := EndedRun{State: state}
			if e.Run, e.Attempt, err = f.finishedRun(ctx, tx, end, res); err != nil {
				return out, err
			}
			out.Ended = append(out.Ended, e)
		}
		switch state {
		case run.RetryWait:
			out.Retried++
		case run.Lost:
			out.RunsLost++
		}
	}
	return out, nil
}
