package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/qinglong/qinglong/internal/run"
	"github.com/qinglong/qinglong/internal/schedule"
	"github.com/qinglong/qinglong/internal/task"
)

// commitReplyTimeout bounds waiting for COMMIT's reply. COMMIT runs
// detached from the caller's cancellation: abandoning it half-way would
// turn a clean outcome into an unknown one.
const commitReplyTimeout = 30 * time.Second

// Stable reasons of the commit path (the verification adds its own).
const (
	reasonOutcomeUnknown   = "outcome_unknown"
	reasonConnectionLost   = "connection_lost"
	reasonRetriesExhausted = "serialization_retries_exhausted"
	reasonIdempotency      = "idempotency_conflict"
	reasonWriteFailed      = "write_failed"
	reasonCancelled        = "cancelled"
	reasonInvalidParams    = "invalid_params"
	reasonFenceLost        = "claim_expired"
)

// ScheduleCommit verifies a ticket and writes its decision in one
// SERIALIZABLE transaction (SPEC §6). Serialization failures and deadlocks
// are retried a bounded number of times, each re-verifying from scratch. A
// connection lost before COMMIT is Unavailable/"connection_lost" (nothing
// was written); lost during COMMIT it is Unavailable/"outcome_unknown" and
// is never retried blindly — the idempotency key and the cleared claim
// make a later resolution from durable facts safe. Both wrap
// schedule.ErrUnavailable.
func (r *Runtime) ScheduleCommit(ctx context.Context, p schedule.CommitParams) (schedule.CommitResult, error) {
	if reason := checkCommitParams(p); reason != "" {
		return schedule.CommitResult{Outcome: schedule.Failed, Reason: reasonInvalidParams}, fmt.Errorf("commit of trigger %s: %s", p.Ticket.TriggerID, reason)
	}
	defer r.handles.forget(p.Ticket.Lease.Token)
	var lastErr error
	for attempt := 1; attempt <= maxSerializableAttempts; attempt++ {
		res, err := r.commitOnce(ctx, p)
		if err == nil || !retryable(err) {
			return res, err
		}
		lastErr = err
		if backoff(ctx, attempt) != nil {
			break
		}
	}
	return schedule.CommitResult{Outcome: schedule.Failed, Reason: reasonRetriesExhausted},
		fmt.Errorf("commit of trigger %s: %w", p.Ticket.TriggerID, lastErr)
}

// checkCommitParams rejects what no round would build.
func checkCommitParams(p schedule.CommitParams) string {
	switch {
	case p.Ticket.Lease == nil:
		return "the ticket has no claim; the cluster store commits only claimed tickets"
	case p.Decision.Action != schedule.Admit && (p.RunID != "" || p.AttemptID != ""):
		return "run and attempt ids are given for a " + string(p.Decision.Action) + " decision"
	}
	return ""
}

// commitOnce is one transaction attempt. A retryable error is returned
// as-is for the caller to retry; every other outcome is final.
func (r *Runtime) commitOnce(ctx context.Context, p schedule.CommitParams) (schedule.CommitResult, error) {
	conn, err := r.pool.Acquire(ctx)
	if err != nil {
		return failure(ctx, err, false)
	}
	// A connection released mid-transaction (after an error) is closed by
	// the pool, never reused.
	defer conn.Release()
	committed := false
	defer func() {
		if !committed && !conn.Conn().PgConn().IsClosed() {
			conn.Exec(context.WithoutCancel(ctx), "ROLLBACK") //nolint:errcheck // a failed rollback closes the connection
		}
	}()

	facts, err := r.beginAndLock(ctx, conn, p.Ticket)
	if errors.Is(err, pgx.ErrNoRows) {
		return schedule.CommitResult{Outcome: schedule.Failed, Reason: "schedule_missing"}, nil
	}
	if err != nil {
		return failure(ctx, err, false)
	}
	if v := verifyTicket(p, facts); v.Outcome != "" {
		return schedule.CommitResult{Outcome: v.Outcome, Reason: v.Reason}, nil
	}
	outcome, touched, err := r.writeDecision(ctx, conn, p, facts)
	if err != nil {
		return failure(ctx, err, false)
	}
	if !touched {
		// The lock was held, so only the clock can have moved past expiry
		// between verification and the final update.
		return schedule.CommitResult{Outcome: schedule.Raced, Reason: reasonFenceLost}, nil
	}
	commitCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), commitReplyTimeout)
	defer cancel()
	tag, err := conn.Exec(commitCtx, sqlCommit)
	if err != nil {
		return failure(ctx, err, true)
	}
	committed = true
	if tag.String() != "COMMIT" {
		// PostgreSQL answers COMMIT of an aborted transaction with
		// ROLLBACK; every error is handled above, so this is a bug.
		return schedule.CommitResult{Outcome: schedule.Failed, Reason: reasonWriteFailed}, fmt.Errorf("commit of trigger %s was rolled back (%s)", p.Ticket.TriggerID, tag)
	}
	res := schedule.CommitResult{Outcome: outcome}
	if outcome == schedule.Admitted {
		res.RunID = p.RunID
	}
	return res, nil
}

// beginAndLock starts the SERIALIZABLE transaction and locks the ticket's
// row in one round trip, addressing the row by the handle the take
// remembered; without one, or when the row version moved since (then
// verification reports why), it locates the row by primary key.
func (r *Runtime) beginAndLock(ctx context.Context, conn *pgxpool.Conn, tk schedule.Ticket) (commitFacts, error) {
	tid, known := r.handles.lookup(tk.Lease.Token)
	b := &pgx.Batch{}
	b.Queue(sqlBeginSerializable)
	b.Queue(sqlGenericPlans)
	if known {
		b.Queue(sqlCommitLock, tk.TriggerID, tid)
	} else {
		b.Queue(sqlScheduleLocate, tk.TriggerID)
	}
	br := conn.SendBatch(ctx, b)
	for range 2 {
		if _, err := br.Exec(); err != nil {
			br.Close()
			return commitFacts{}, err
		}
	}
	var f commitFacts
	var err error
	if known {
		f, err = scanCommitFacts(br.QueryRow(), tk.TriggerID)
	} else {
		err = br.QueryRow().Scan(&tid)
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if known && !errors.Is(err, pgx.ErrNoRows) {
		return f, err
	}
	if known {
		if err := conn.QueryRow(ctx, sqlScheduleLocate, tk.TriggerID).Scan(&tid); err != nil {
			return commitFacts{}, err
		}
	} else if err != nil {
		return commitFacts{}, err
	}
	return scanCommitFacts(conn.QueryRow(ctx, sqlCommitLock, tk.TriggerID, tid), tk.TriggerID)
}

// writeDecision writes the decision in one round trip and reports whether
// the fenced schedule update touched exactly one row.
func (r *Runtime) writeDecision(ctx context.Context, conn *pgxpool.Conn, p schedule.CommitParams, f commitFacts) (schedule.Outcome, bool, error) {
	tk, l, d := p.Ticket, p.Ticket.Lease, p.Decision
	var lastScheduled *int64
	b := &pgx.Batch{}
	outcome := schedule.Initialized
	switch d.Action {
	case schedule.SkipLate:
		outcome = schedule.Skipped
	case schedule.Admit:
		outcome = schedule.Admitted
		lastScheduled = &d.ScheduledForMs
		if err := queueAdmission(b, p, f); err != nil {
			return "", false, err
		}
	}
	b.Queue(sqlCommitSchedule, tk.TriggerID, tk.TriggerRevision, tk.StateVersion, tk.NextFireAtMs,
		l.Owner, l.Token, l.ClaimVersion, l.ExpiresAtMs, l.AcquiredAtMs, d.NextFireAtMs, lastScheduled, f.TID)
	br := conn.SendBatch(ctx, b)
	var tag int64
	for i := range b.Len() {
		ct, err := br.Exec()
		if err != nil {
			br.Close()
			if sqlState(err) == stateUniqueViolation && i == 0 {
				return "", false, errIdempotency
			}
			return "", false, err
		}
		tag = ct.RowsAffected()
	}
	if err := br.Close(); err != nil {
		return "", false, err
	}
	return outcome, tag == 1, nil
}

var errIdempotency = errors.New("an admission with this idempotency key already exists")

// queueAdmission queues the queued Run, Attempt 1 and events 1 and 2.
func queueAdmission(b *pgx.Batch, p schedule.CommitParams, f commitFacts) error {
	tk, d, now := p.Ticket, p.Decision, f.NowMs
	key := schedule.IdempotencyKey(tk.TriggerID, tk.TriggerRevision, d.ScheduledForMs)
	created, err := json.Marshal(map[string]any{
		"executionRevisionId":  f.Execution.ID,
		"executionDigest":      f.Execution.Digest,
		"triggerId":            tk.TriggerID,
		"triggerRevision":      tk.TriggerRevision,
		"triggerContentDigest": tk.TriggerContentDigest,
		"taskRevision":         tk.TaskRevision,
		"scheduledForMs":       d.ScheduledForMs,
		"idempotencyKey":       key,
	})
	if err != nil {
		return err
	}
	queued, err := json.Marshal(map[string]any{"attemptId": p.AttemptID, "attempt": 1, "executor": string(task.RemoteWorker)})
	if err != nil {
		return err
	}
	b.Queue(sqlRunInsert, p.RunID, tk.ProjectID, tk.TaskID, tk.TaskRevision, tk.TriggerID, tk.TriggerRevision,
		f.Execution.ID, key, d.ScheduledForMs, now)
	b.Queue(sqlAttemptInsert, p.AttemptID, p.RunID, string(task.RemoteWorker), now)
	b.Queue(sqlEventInsert, p.RunID, int64(1), run.EventCreated, created, now)
	b.Queue(sqlEventInsert, p.RunID, int64(2), run.EventQueued, queued, now)
	return nil
}

// failure classifies an error of one attempt. Retryable errors pass
// through untouched for the retry loop.
func failure(ctx context.Context, err error, commitSent bool) (schedule.CommitResult, error) {
	switch {
	case retryable(err):
		return schedule.CommitResult{}, err
	case connectionLost(err) || (commitSent && sqlState(err) == ""):
		reason := reasonConnectionLost
		if commitSent {
			reason = reasonOutcomeUnknown
		}
		return schedule.CommitResult{Outcome: schedule.Unavailable, Reason: reason}, fmt.Errorf("%w (%s): %w", schedule.ErrUnavailable, reason, err)
	case errors.Is(err, errIdempotency):
		return schedule.CommitResult{Outcome: schedule.Failed, Reason: reasonIdempotency}, err
	case ctx.Err() != nil:
		return schedule.CommitResult{Outcome: schedule.Failed, Reason: reasonCancelled}, err
	}
	return schedule.CommitResult{Outcome: schedule.Failed, Reason: reasonWriteFailed}, err
}
