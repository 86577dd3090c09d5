package pgstore

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
)

// commitReplyTimeout bounds waiting for COMMIT's reply. COMMIT runs
// detached from the caller's cancellation: abandoning it half-way would
// turn a clean outcome into an unknown one.
const commitReplyTimeout = 30 * time.Second

// ScheduleCommit verifies a ticket and writes its decision in one
// transaction holding the schedule row's lock (docs/architecture.md, "Admission", sql/admission.sql).
// Serialization failures and deadlocks are retried a bounded number of
// times, each re-verifying from scratch. A
// connection lost before COMMIT can have run (COMMIT is pipelined behind
// the write, see writeAndCommit) is Unavailable/"connection_lost" (nothing
// was written); lost once it may have run it is Unavailable/
// "outcome_unknown" and is never retried blindly — the idempotency key and
// the cleared claim make a later resolution from durable facts safe. Lost
// once COMMIT has answered, the outcome is the known one, returned with an
// error. All three wrap schedule.ErrUnavailable.
func (r *Runtime) ScheduleCommit(ctx context.Context, p schedule.CommitParams) (schedule.CommitResult, error) {
	if p.Ticket.Lease == nil {
		return schedule.ReasonInvalidParams.Result(),
			fmt.Errorf("commit of trigger %s: the ticket has no claim; the cluster store commits only claimed tickets", p.Ticket.TriggerID)
	}
	defer r.handles.forget(p.Ticket.Lease.Token)
	var lastErr error
	for attempt := 1; attempt <= commitRetry.attempts; attempt++ {
		res, err := r.commitOnce(ctx, p)
		if err == nil || !retryable(err) {
			return res, err
		}
		lastErr = err
		if commitRetry.wait(ctx, attempt) != nil {
			break
		}
	}
	return schedule.ReasonRetriesExhausted.Result(),
		fmt.Errorf("commit of trigger %s: %w", p.Ticket.TriggerID, lastErr)
}

// commitOnce is one transaction attempt. A retryable error is returned
// as-is for the caller to retry; every other outcome is final.
func (r *Runtime) commitOnce(ctx context.Context, p schedule.CommitParams) (res schedule.CommitResult, err error) {
	conn, err := r.pool.Acquire(ctx)
	if err != nil {
		return failure(ctx, err, false)
	}
	// A connection released mid-transaction (after an error) is closed by
	// the pool, never reused.
	defer conn.Release()
	ended := false
	defer func() {
		if !ended && !conn.Conn().PgConn().IsClosed() {
			res, err = rolledBack(ctx, conn, res, err)
		}
	}()

	facts, err := r.beginAndLock(ctx, conn, p.Ticket)
	if errors.Is(err, pgx.ErrNoRows) {
		return schedule.ReasonScheduleMissing.Result(), nil
	}
	if err != nil {
		return failure(ctx, err, false)
	}
	if reason := verifyTicket(p, facts); reason != "" {
		return reason.Result(), nil
	}
	// From here on p is the decision to write: an admission whose
	// occurrence already has its Run since the clock went back, or that
	// the overlap policy passes over, is written passed over.
	if p, err = passAdmittedBefore(ctx, conn, p, facts); err != nil {
		if retryable(err) {
			return schedule.CommitResult{}, err
		}
		return failure(ctx, err, false)
	}
	p, eff, err := applyOverlap(ctx, conn, p, facts)
	if err != nil {
		if retryable(err) {
			return schedule.CommitResult{}, err
		}
		return failure(ctx, err, false)
	}
	args, outcome, err := decisionArgs(p, facts, eff)
	if err != nil {
		return failure(ctx, err, false)
	}
	// The write and COMMIT go out together, and a caller already gone must
	// not start them.
	if err := ctx.Err(); err != nil {
		return failure(ctx, err, false)
	}
	var w written
	commitMaybeRan, err := writeAndCommit(ctx, conn, sqlCommitWrite, args, func(br pgx.BatchResults) error {
		// The last column, the cancels' guard, says nothing when the
		// statement succeeds: it only ever fails it (errFenceFailedAfterCancels).
		return br.QueryRow().Scan(&w.schedules, &w.runs, &w.attempts, &w.events, &w.ledger, nil)
	})
	if errors.Is(err, errFenceFailedAfterCancels) {
		// The server skipped COMMIT, and the deferred ROLLBACK takes the
		// cancels back with the admission: the claim expired, nothing was
		// written and no Run was finished.
		return schedule.ReasonClaimExpired.Result(), nil
	}
	var lost *lostAfterCommit
	if err != nil && !errors.As(err, &lost) {
		return failure(ctx, err, commitMaybeRan)
	}
	ended = true
	switch {
	case w == written{}:
		// The lock was held, so only the clock can have moved past expiry
		// between verification and the fenced update, and then the write
		// touched nothing: the COMMIT that followed committed nothing (no
		// cancels either: with cancels the write would have failed).
		res = schedule.ReasonClaimExpired.Result()
	case w != expectedWrite(outcome, len(p.Decision.Passed)):
		// Impossible by construction of sqlCommitWrite (each insert selects
		// from the step before it); a changed statement that breaks this
		// must not be reported as a clean outcome.
		res = schedule.ReasonWriteFailed.Result()
		res.Finished = eff.finished
		return res,
			fmt.Errorf("commit of trigger %s wrote %d schedule, %d run, %d attempt, %d event and %d ledger rows for %s", p.Ticket.TriggerID,
				w.schedules, w.runs, w.attempts, w.events, w.ledger, outcome)
	default:
		// p's decision is the one written, overlap pass included, and the
		// write inserted exactly its ledger entries (expectedWrite).
		res = schedule.CommitResult{Outcome: outcome, Passed: p.Decision.Passed}
		if outcome == schedule.Admitted {
			res.RunID, res.AdmittedAtMs = p.RunID, facts.NowMs
		}
	}
	// COMMIT answered, so the cancels before the write stand: the write
	// held, or there were none (the write fails the transaction when its
	// fence fails after cancels). The workers of the Runs they asked to
	// stop are woken now: a statement more only when cancel_previous found
	// a Run of the trigger running, never in the admission's transaction.
	res.Finished = eff.finished
	notifyStopAsked(ctx, r.pool, eff.stops)
	if lost != nil {
		// COMMIT answered, so res is what happened; the connection is gone
		// all the same, and the replica must learn it (docs/architecture.md, "Rounds and the lifecycle").
		return res, fmt.Errorf("%w (%s after COMMIT): %w", schedule.ErrUnavailable, schedule.ReasonConnectionLost, lost.err)
	}
	return res, nil
}

// rolledBack ends an attempt that did not commit (a verification outcome or
// an error). Nothing was written, so the attempt's result stands — unless
// the session ends right here: only this ROLLBACK sees it, and the pool
// would discard the closed connection silently on release, so the loss is
// added to the result (the replica must learn it, docs/architecture.md, "Rounds and the lifecycle"). A retryable
// error cannot be retried on a lost connection and becomes the loss.
//
// The ROLLBACK has a time limit of its own: a link that died with the
// statement unacknowledged is not caught by TCP keepalives (they only probe
// an idle connection), so without one a round could wait for the kernel's
// retransmission timeout, many minutes. A ROLLBACK that does not answer
// within the limit has lost its connection.
func rolledBack(ctx context.Context, conn *pgxpool.Conn, res schedule.CommitResult, err error) (schedule.CommitResult, error) {
	return withRollbackLoss(res, err, rollback(ctx, conn))
}

// rollback sends ROLLBACK and returns the loss of the connection it saw,
// wrapping schedule.ErrUnavailable, or nil. Any other ROLLBACK failure
// closes the connection; nothing was written either way.
func rollback(ctx context.Context, conn *pgxpool.Conn) error {
	rbCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackTimeout)
	defer cancel()
	_, rbErr := conn.Exec(rbCtx, sqlRollback)
	if rbErr != nil && rbCtx.Err() != nil {
		rbErr = fmt.Errorf("no answer to ROLLBACK within %s: %w", rollbackTimeout, net.ErrClosed)
	}
	if !connectionLost(rbErr) {
		return nil
	}
	return fmt.Errorf("%w (%s at ROLLBACK): %w", schedule.ErrUnavailable, schedule.ReasonConnectionLost, rbErr)
}

// withRollbackLoss adds a connection lost at ROLLBACK (nil: none) to the
// result of an attempt that did not commit.
func withRollbackLoss(res schedule.CommitResult, err, lost error) (schedule.CommitResult, error) {
	if lost == nil || errors.Is(err, schedule.ErrUnavailable) {
		return res, err
	}
	switch {
	case err == nil:
		return res, lost
	case retryable(err) || res.Outcome == "":
		return schedule.ReasonConnectionLost.Result(), lost
	}
	return res, errors.Join(err, lost)
}

// beginAndLock starts the admission transaction and locks the ticket's
// row in one round trip, addressing the row by the handle the take
// remembered; without one, or when the row version moved since (then
// verification reports why), it locates the row by primary key.
func (r *Runtime) beginAndLock(ctx context.Context, conn *pgxpool.Conn, tk schedule.Ticket) (commitFacts, error) {
	tid, known := r.handles.lookup(tk.Lease.Token)
	b := &pgx.Batch{}
	b.Queue(sqlBeginAdmission)
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

// passAdmittedBefore returns p with its admission passed over as
// PassClockWentBack when its occurrence already has its Run: admitted
// while the clock read later, before a check moved the row's cursor back
// (schedule.MayHaveItsRun). Only such an admission reads runs here: one
// lookup of the unique key, in the transaction holding the row lock, which
// any admission of the same occurrence would have had to take. Any other
// taken key (a schedule restored from a backup older than its Runs) still
// fails the write as ReasonOccurrenceExists.
func passAdmittedBefore(ctx context.Context, q querier, p schedule.CommitParams, f commitFacts) (schedule.CommitParams, error) {
	if !schedule.MayHaveItsRun(p.Ticket, p.Decision) {
		return p, nil
	}
	key := schedule.IdempotencyKey(p.Ticket.TriggerID, p.Ticket.TriggerRevision, p.Decision.ScheduledForMs)
	var runID string
	switch err := q.QueryRow(ctx, sqlRunByKey, f.ProjectID, key).Scan(&runID); {
	case errors.Is(err, pgx.ErrNoRows):
		return p, nil
	case err != nil:
		return p, err
	}
	return clockWentBackPassed(p), nil
}

// clockWentBackPassed is p's admission passed over because its occurrence
// already has its Run (schedule.PassClockWentBack): the cursor moves as the
// admission would have moved it, and no Run is written.
func clockWentBackPassed(p schedule.CommitParams) schedule.CommitParams {
	p.Decision = p.Decision.PassedAs(schedule.PassClockWentBack)
	p.RunID, p.AttemptID = "", ""
	return p
}

// overlapEffect is what the overlap policy did to an admission before its
// write.
type overlapEffect struct {
	// waits: the admitted Run waits for the trigger's unfinished ones.
	waits bool
	// replaces is the newest Run cancel_previous cancelled for the
	// admission, whose place in the dispatch order its Run takes; "" for
	// any other.
	replaces string
	// cancelled: the trigger's unfinished Runs were cancelled in the
	// admission's transaction, so its write must hold or fail the
	// transaction (errFenceFailedAfterCancels).
	cancelled bool
	// finished counts the Runs those cancels finished; they stand only
	// once the transaction commits.
	finished run.FinishCounts
	// stops are the worker sessions holding an attempt those cancels asked
	// to stop, woken once the transaction has committed.
	stops []string
}

// applyOverlap returns p with the decision its trigger's overlap policy
// makes of it, as the unfinished Runs read under the row lock say
// (schedule.OverlapOf): an admission passed over, kept with its Run
// waiting for the unfinished one (queue_one), or kept waiting after every
// unfinished Run was cancelled in the admission's transaction through the
// same steps as CancelRun (cancel_previous).
//
// The cancels come before the write, which is pipelined with COMMIT, so
// they cannot be made conditional on the write's row count in between.
// Writing them inside the write statement instead would duplicate
// CancelRun's steps (the attempt's end, the Run's event, the
// notifications the trigger's rules derive) in SQL. So the write carries
// the fact that they were made, and fails the transaction when its fence
// fails after them. The claim's expiry passing in the one statement
// between verification and the write is rare, and then costs a rollback;
// reading the write's answer before sending COMMIT would cost every commit
// that cancels a round trip more.
func applyOverlap(ctx context.Context, q querier, p schedule.CommitParams, f commitFacts) (schedule.CommitParams, overlapEffect, error) {
	if p.Decision.Action != schedule.Admit {
		return p, overlapEffect{}, nil
	}
	switch schedule.OverlapOf(f.Trigger.Spec.Cron.Overlap, len(f.Unfinished), f.Waiting != "") {
	case schedule.OverlapPass:
		p.Decision = p.Decision.OverlapPassed()
		p.RunID, p.AttemptID = "", ""
	case schedule.OverlapAdmitWaiting:
		return p, overlapEffect{waits: true}, nil
	case schedule.OverlapCancelThenAdmit:
		finished, stops, err := cancelRuns(ctx, q, f.Unfinished, run.CancelledByLaterOccurrence)
		if err != nil {
			return p, overlapEffect{}, err
		}
		return p, overlapEffect{waits: true, replaces: schedule.OverlapReplaced(f.Unfinished), cancelled: true, finished: finished, stops: stops}, nil
	}
	return p, overlapEffect{}, nil
}

// cancelRuns cancels each Run through CancelRun's steps, in the caller's
// transaction, recording by as what cancelled it, counts the Runs it finished and names the worker sessions
// holding the attempts it asked to stop (each once), which the caller
// wakes after its COMMIT (notifyStopAsked).
func cancelRuns(ctx context.Context, q querier, runIDs []string, by run.CancelReason) (finished run.FinishCounts, stops []string, err error) {
	for _, id := range runIDs {
		lf, err := lockLatestAttempt(ctx, q, id)
		if err != nil {
			return finished, nil, err
		}
		c, err := cancelLocked(ctx, q, lf, by, "")
		if err != nil {
			return finished, nil, err
		}
		if c.effect.Finished {
			finished.Add(run.Cancelled)
		}
		if c.stop != "" && !slices.Contains(stops, c.stop) {
			stops = append(stops, c.stop)
		}
	}
	return finished, stops, nil
}

// decisionArgs are sqlCommitWrite's arguments for the verified decision,
// with the outcome a successful write means.
func decisionArgs(p schedule.CommitParams, f commitFacts, eff overlapEffect) ([]any, schedule.Outcome, error) {
	tk, l, d := p.Ticket, p.Ticket.Lease, p.Decision
	var lastScheduled *int64
	outcome := schedule.Initialized
	admission := noAdmission()
	switch d.Action {
	case schedule.SkipLate:
		outcome = schedule.Skipped
	case schedule.Admit:
		outcome, lastScheduled = schedule.Admitted, &d.ScheduledForMs
		admission = admissionArgsOf(p, f)
		admission["waits"], admission["replaces"] = eff.waits, nullable(eff.replaces)
	}
	args := pgx.StrictNamedArgs{
		"trigger_id":           tk.TriggerID,
		"trigger_revision":     tk.TriggerRevision,
		"state_version":        tk.StateVersion,
		"cursor":               tk.NextFireAtMs,
		"owner":                l.Owner,
		"token":                l.Token,
		"claim_version":        l.ClaimVersion,
		"expires_at_ms":        l.ExpiresAtMs,
		"acquired_at_ms":       l.AcquiredAtMs,
		"next_cursor":          d.NextFireAtMs,
		"next_due_offset_ms":   d.NextDueOffset(),
		"last_scheduled_at_ms": lastScheduled,
		"tid":                  f.TID,
		"cancelled":            eff.cancelled,
	}
	maps.Copy(args, admission)
	maps.Copy(args, ledgerArgs(d.Passed))
	positional, err := commitWriteParams.args(args)
	return positional, outcome, err
}

// noAdmission sets every one of sqlCommitWrite's parameters that describe
// the admission to NULL: the write then creates no Run.
func noAdmission() pgx.StrictNamedArgs {
	return pgx.StrictNamedArgs{
		"run_id": nil, "project_id": nil, "task_id": nil, "task_revision": nil, "execution_revision_id": nil,
		"idempotency_key": nil, "scheduled_for_ms": nil, "due_at_ms": nil, "admitted_at_ms": nil, "attempt_id": nil, "executor": nil,
		"created_event": nil, "created_payload": nil, "queued_event": nil, "queued_payload": nil, "waits": nil,
		"replaces": nil,
	}
}

// admission is what an admit writes beside the schedule row: the queued
// Run, Attempt 1 and the payloads of events 1 and 2.
type admission struct {
	key            string
	created        []byte
	queued         []byte
	executionRevID string
}

// admissionOf describes the queued Run, Attempt 1 and events 1 and 2.
func admissionOf(p schedule.CommitParams, f commitFacts) admission {
	tk, d := p.Ticket, p.Decision
	key := schedule.IdempotencyKey(tk.TriggerID, tk.TriggerRevision, d.ScheduledForMs)
	created := createdOf(p, f, key)
	queued := firstQueued(p.AttemptID)
	return admission{key: key, created: created.appendJSON(nil), queued: queued.appendJSON(nil), executionRevID: f.Execution.ID}
}

// createdOf is the created event's payload of p's admission, key its
// idempotency key.
func createdOf(p schedule.CommitParams, f commitFacts, key string) createdPayload {
	tk := p.Ticket
	return createdPayload{
		ExecutionDigest:      f.Execution.Digest,
		ExecutionRevisionID:  f.Execution.ID,
		IdempotencyKey:       key,
		ScheduledForMs:       p.Decision.ScheduledForMs,
		TaskRevision:         tk.TaskRevision,
		TriggerContentDigest: tk.TriggerContentDigest,
		TriggerID:            tk.TriggerID,
		TriggerRevision:      tk.TriggerRevision,
	}
}

// admissionArgsOf is admissionOf as sqlCommitWrite's arguments.
func admissionArgsOf(p schedule.CommitParams, f commitFacts) pgx.StrictNamedArgs {
	tk, d := p.Ticket, p.Decision
	a := admissionOf(p, f)
	return pgx.StrictNamedArgs{
		"run_id":                p.RunID,
		"project_id":            tk.ProjectID,
		"task_id":               tk.TaskID,
		"task_revision":         tk.TaskRevision,
		"execution_revision_id": a.executionRevID,
		"idempotency_key":       a.key,
		"scheduled_for_ms":      d.ScheduledForMs,
		"due_at_ms":             d.FireAtMs,
		"admitted_at_ms":        f.NowMs,
		"attempt_id":            p.AttemptID,
		"executor":              string(task.RemoteWorker),
		"created_event":         run.EventCreated,
		"created_payload":       a.created,
		"queued_event":          run.EventQueued,
		"queued_payload":        a.queued,
	}
}

// ledgerArgs are a decision's passed-over occurrences as sqlCommitWrite's
// ledger arrays (empty when it passes nothing over).
func ledgerArgs(passed []schedule.Passed) pgx.StrictNamedArgs {
	reasons, first, last, count, atLeast := make([]string, len(passed)), make([]int64, len(passed)), make([]int64, len(passed)),
		make([]int64, len(passed)), make([]bool, len(passed))
	for i, p := range passed {
		reasons[i], first[i], last[i], count[i], atLeast[i] = string(p.Reason), p.FirstMs, p.LastMs, p.Count, p.AtLeast
	}
	return pgx.StrictNamedArgs{
		"ledger_reason": reasons, "ledger_first": first, "ledger_last": last, "ledger_count": count, "ledger_at_least": atLeast,
		"ledger_keep": int64(schedule.LedgerKeep),
	}
}

// written is what sqlCommitWrite reported touching.
type written struct {
	schedules, runs, attempts, events, ledger int64
}

// expectedWrite is what a write whose fence held touches for outcome and
// a decision passing over passed ledger entries.
func expectedWrite(outcome schedule.Outcome, passed int) written {
	w := written{schedules: 1, ledger: int64(passed)}
	if outcome == schedule.Admitted {
		w.runs, w.attempts, w.events = 1, 1, 2
	}
	return w
}

// writeAndCommit sends the write (query, whose reply read consumes) and
// COMMIT in one round trip: a pipeline with a single Sync at its end. After an error the server skips every
// message up to the Sync, so COMMIT runs only if the write succeeded; and
// the write statements write nothing at all for a row whose fence no longer
// holds, so no row count has to be checked between the two.
//
// Whether COMMIT may have run when an error comes back: not when the batch
// failed before anything was executed (pgx.ErrPreprocessingBatch: at most
// statements were parsed), nor when the server answered the write with an
// error (it then skipped COMMIT, or died before reaching it). Any other
// failure — the link lost while the write's or COMMIT's reply was awaited,
// or COMMIT itself failing with a connection-class error — leaves it open,
// and commitMaybeRan reports it: the outcome is then unknown.
//
// The batch never rides on the caller's context: pgx gives up on a
// cancelled context by cutting the connection, which would turn a clean
// outcome into an unknown one. It is bounded by commitReplyTimeout, and a
// cancelled caller interrupts it through the server instead (see
// interruptOnCancel), so a write blocked on a lock is still abandoned
// promptly and its reply still says exactly what happened.
func writeAndCommit(ctx context.Context, conn *pgxpool.Conn, query string, args []any, read func(pgx.BatchResults) error) (commitMaybeRan bool, err error) {
	batchCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), commitReplyTimeout)
	defer cancel()
	stop := interruptOnCancel(ctx, conn.Conn())
	defer stop()
	b := &pgx.Batch{}
	b.Queue(query, args...)
	b.Queue(sqlCommit)
	br := conn.SendBatch(batchCtx, b)
	defer br.Close() // on the error paths; a clean COMMIT checks the Sync's reply below
	if err := read(br); err != nil {
		var pre pgx.ErrPreprocessingBatch
		return sqlState(err) == "" && !errors.As(err, &pre), annotate(ctx, err)
	}
	tag, err := br.Exec()
	if err != nil {
		return true, annotate(ctx, err)
	}
	if tag.String() != "COMMIT" {
		// PostgreSQL answers COMMIT of an aborted transaction with
		// ROLLBACK; the write succeeded, so this is a bug.
		return false, fmt.Errorf("the admission transaction was rolled back (%s)", tag)
	}
	// The Sync's reply. The outcome is already known, but the session can
	// still end here: a backend terminated while its COMMIT ran (the commit
	// holds interrupts off until it is durable) answers COMMIT and then dies
	// instead of answering the Sync. Nothing else ever sees that error: the
	// pool quietly discards the closed connection on release and opens a
	// new one, so a busy replica would keep admitting as if nothing
	// happened.
	if err := br.Close(); err != nil {
		return false, &lostAfterCommit{err: err}
	}
	return false, nil
}

// lostAfterCommit is writeAndCommit's error when COMMIT succeeded but the
// Sync after it was never answered: the session ended (the server
// terminated it, the link broke, or commitReplyTimeout cut it) and pgx has
// closed the connection.
type lostAfterCommit struct{ err error }

func (e *lostAfterCommit) Error() string { return "connection lost after COMMIT: " + e.err.Error() }
func (e *lostAfterCommit) Unwrap() error { return e.err }

// interruptOnCancel sends PostgreSQL cancel requests for conn's backend
// once ctx is cancelled: a cancel interrupts only the statement running
// there (a write waiting for a lock, or COMMIT before its commit record),
// whose reply then reports the failure over the intact connection. A
// cancel that reaches the backend before the statement does — the caller
// gave up while the batch was still on its way — is ignored by the server,
// so the request is repeated every cancelResendInterval until the batch
// answers (stop is called) or cancelRequestTimeout passes. A cancel request
// is asynchronous and could still interrupt whatever that backend runs
// next, so once one was sent the connection is closed rather than reused.
func interruptOnCancel(ctx context.Context, conn *pgx.Conn) (stop func()) {
	sent := make(chan struct{})
	answered := make(chan struct{})
	stopWatch := context.AfterFunc(ctx, func() {
		defer close(sent)
		reqCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelRequestTimeout)
		defer cancel()
		resend := time.NewTicker(cancelResendInterval)
		defer resend.Stop()
		for {
			conn.PgConn().CancelRequest(reqCtx) //nolint:errcheck // best effort: without it the batch runs until commitReplyTimeout
			select {
			case <-answered:
				return
			case <-reqCtx.Done():
				return
			case <-resend.C:
			}
		}
	})
	return func() {
		if stopWatch() {
			return
		}
		close(answered)
		<-sent
		conn.Close(context.WithoutCancel(ctx)) // the connection is discarded either way
	}
}

// rollbackTimeout bounds the ROLLBACK of an admission that did not commit.
const rollbackTimeout = 5 * time.Second

// cancelRequestTimeout bounds the cancel requests for one batch.
const cancelRequestTimeout = 5 * time.Second

// cancelResendInterval is how often a cancel request is repeated while the
// cancelled batch has not answered.
const cancelResendInterval = 100 * time.Millisecond

// annotate marks an error of the write or COMMIT: the statement our own
// cancel request interrupted reports the caller's cancellation, a unique
// violation of the idempotency key the conflict it means, and the write's
// guard the fence that failed after cancels.
func annotate(ctx context.Context, err error) error {
	switch {
	case sqlState(err) == stateQueryCanceled && ctx.Err() != nil:
		return fmt.Errorf("%w: %w", ctx.Err(), err)
	case violates(err, constraintRunIdempotency):
		return fmt.Errorf("%w: %w", errIdempotency, err)
	case sqlState(err) == stateDivisionByZero:
		return fmt.Errorf("%w: %w", errFenceFailedAfterCancels, err)
	}
	return err
}

// stateDivisionByZero is what the write statements' guard fails with
// (sql/commit_write.sql): the only division in them.
const stateDivisionByZero = "22012"

// errFenceFailedAfterCancels: a write's fence failed (the claim expired in
// database time after verification) for a decision whose trigger's
// unfinished Runs cancel_previous had already cancelled in the transaction.
// The write failed instead of writing nothing, so COMMIT did not run and
// the cancels roll back with it.
var errFenceFailedAfterCancels = errors.New("the claim expired after cancel_previous cancelled the trigger's unfinished Runs; the transaction is rolled back")

// stateQueryCanceled is what a statement interrupted by a cancel request
// fails with.
const stateQueryCanceled = "57014"

// constraintRunIdempotency is the unique (project_id, idempotency_key) of
// runs: violating it means this occurrence was already admitted.
const constraintRunIdempotency = "runs_idempotency_key"

var errIdempotency = errors.New("an admission with this idempotency key already exists")

// violates reports a unique violation of the named constraint.
func violates(err error, constraint string) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == stateUniqueViolation && pe.ConstraintName == constraint
}

// failure classifies an error of one attempt. Retryable errors pass
// through untouched for the retry loop.
func failure(ctx context.Context, err error, commitSent bool) (schedule.CommitResult, error) {
	switch {
	case retryable(err):
		return schedule.CommitResult{}, err
	case connectionLost(err) || (commitSent && sqlState(err) == ""):
		reason := schedule.ReasonConnectionLost
		if commitSent {
			reason = schedule.ReasonOutcomeUnknown
		}
		return reason.Result(), fmt.Errorf("%w (%s): %w", schedule.ErrUnavailable, reason, err)
	case errors.Is(err, errIdempotency):
		return schedule.ReasonOccurrenceExists.Result(), err
	case ctx.Err() != nil:
		return schedule.ReasonCancelled.Result(), err
	}
	return writeReason(err).Result(), err
}
