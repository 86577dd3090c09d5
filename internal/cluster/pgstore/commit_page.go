package pgstore

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/qinglong/qinglong/internal/core/loop"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// splitAfter is how many attempts of a group lose a serialization race or a
// deadlock before it is split in halves: one hot row then costs its own
// half, never the whole page, its retries.
const splitAfter = 2

// ScheduleCommitPage commits a page of decisions in one REPEATABLE READ
// transaction (docs/architecture.md, "Admission", sql/commit_page.sql):
// one statement locks every row of the page in trigger id order and reads
// its facts, a second reads its Runs where a decision needs them
// (lockPage), each decision is verified exactly as ScheduleCommit verifies
// it, and one fenced statement writes the rows that passed, pipelined with
// COMMIT in the same round trip. Each result is what ScheduleCommit would
// give that decision alone:
//
//   - a decision that fails verification (or whose occurrence already has
//     its Run) is left out of the write: nothing of it is written, the
//     others commit; an admission whose occurrence has its Run since the
//     clock went back is written passed over (clock_went_back), as
//     ScheduleCommit writes it;
//   - a serialization failure or deadlock retries the group from scratch,
//     and after splitAfter attempts splits it in halves that retry on
//     their own; a group that never gets through is
//     serialization_retries_exhausted;
//   - a connection lost before COMMIT can have run is connection_lost for
//     every decision of the write (nothing was written); lost once it may
//     have run it is outcome_unknown for each, never retried blindly; lost
//     after COMMIT answered, the known outcomes stand and each carries the
//     loss. All three wrap schedule.ErrUnavailable in Err.
//
// Two decisions for the same trigger are committed one after the other,
// in page order, as two ScheduleCommit calls would be. It never returns an
// error: every decision is judged on its own.
func (r *Runtime) ScheduleCommitPage(ctx context.Context, ps []schedule.CommitParams) ([]schedule.CommitResult, error) {
	out := make([]schedule.CommitResult, len(ps))
	var pending []int
	for i, p := range ps {
		if p.Ticket.Lease == nil {
			out[i] = schedule.ReasonInvalidParams.Result()
			out[i].Err = fmt.Errorf("commit of trigger %s: the ticket has no claim; the cluster store commits only claimed tickets", p.Ticket.TriggerID)
			continue
		}
		pending = append(pending, i)
	}
	defer func() {
		for _, p := range ps {
			if p.Ticket.Lease != nil {
				r.handles.forget(p.Ticket.Lease.Token)
			}
		}
	}()
	for len(pending) > 0 {
		seen := make(map[string]bool, len(pending))
		var now, later []int
		for _, i := range pending {
			if id := ps[i].Ticket.TriggerID; seen[id] {
				later = append(later, i)
			} else {
				seen[id] = true
				now = append(now, i)
			}
		}
		group := make([]schedule.CommitParams, len(now))
		for k, i := range now {
			group[k] = ps[i]
		}
		for k, res := range r.commitGroup(ctx, group, false) {
			out[now[k]] = res
		}
		pending = later
	}
	return out, nil
}

// commitGroup commits a group of decisions for distinct triggers, retrying
// and splitting it as ScheduleCommitPage says; probe reads the group's Runs
// before its write (lockPage).
func (r *Runtime) commitGroup(ctx context.Context, group []schedule.CommitParams, probe bool) []schedule.CommitResult {
	var lastErr error
	for attempt := 1; attempt <= commitRetry.attempts; attempt++ {
		res, err := r.commitGroupOnce(ctx, group, probe, true)
		var behind *clockBehindDecision
		for waits := 1; errors.As(err, &behind); waits++ {
			// The last lock (or one after the caller left) waits no more:
			// verification fails the rows still ahead of the clock closed.
			wait := waits <= clockWaits && loop.Sleep(ctx, behind.wait) == nil
			res, err = r.commitGroupOnce(ctx, group, probe, wait)
		}
		if err == nil {
			return res
		}
		if errors.Is(err, errIdempotency) {
			// An occurrence of the group already had its Run, or gained
			// it since the lock's snapshot; the error does not say which.
			// The retry's probe finds it and leaves it out, and nothing
			// is gained by waiting first.
			probe = true
			lastErr = err
			continue
		}
		if errors.Is(err, errFenceFailedAfterCancels) {
			// The retry's verification finds that row's claim expired and
			// leaves it out; the others are written then. Waiting first
			// would only delay them.
			lastErr = err
			continue
		}
		var rowFailed *rowWriteFailed
		if errors.As(err, &rowFailed) {
			// Nothing was written; the halves find the failing row and
			// commit the others.
			half := len(group) / 2
			return append(r.commitGroup(ctx, group[:half], probe), r.commitGroup(ctx, group[half:], probe)...)
		}
		lastErr = err
		if len(group) > 1 && attempt >= splitAfter {
			half := len(group) / 2
			return append(r.commitGroup(ctx, group[:half], probe), r.commitGroup(ctx, group[half:], probe)...)
		}
		if commitRetry.wait(ctx, attempt) != nil {
			break
		}
	}
	out := make([]schedule.CommitResult, len(group))
	for i, p := range group {
		out[i] = schedule.ReasonRetriesExhausted.Result()
		out[i].Err = fmt.Errorf("commit of trigger %s: %w", p.Ticket.TriggerID, lastErr)
	}
	return out
}

// clockWaits bounds how often a group waits for the database clock to
// reach the due time its rows claimed ahead were decided at (clockBehind).
// The scheduler commits such a page once its own estimate of the database
// clock has passed that time, from a lower bound of the offset, so one wait
// is already the exception (a local clock stepped since); the bound keeps a
// clock that keeps jumping from holding the group for ever.
const clockWaits = 3

// clockBehindDecision is the retry error of a group whose lock found the
// database clock behind a row's decision time: the group is rolled back
// (nothing was written), waits this long and is locked again.
type clockBehindDecision struct{ wait time.Duration }

func (e *clockBehindDecision) Error() string {
	return fmt.Sprintf("the database clock is %s behind the due time a row claimed ahead was decided at", e.wait)
}

// clockBehind is how far the page lock's database clock is behind the
// latest decision time of the group's rows claimed ahead (0 when none
// is): a decision made at a row's due time may be admitted only once the
// database clock has reached it, and committing a moment later is what
// the same claim taken at that moment would have done. A row more than
// half a lease ahead is not waited for (a claim never reaches further
// ahead: sql/claim.sql); its verification fails it closed.
func (r *Runtime) clockBehind(group []schedule.CommitParams, facts pageLock) time.Duration {
	var behind int64
	for i, p := range group {
		f, ok := facts.at(i)
		if !ok || !decidedAhead(p.Ticket) {
			continue
		}
		if d := p.Ticket.ObservedAtMs - f.NowMs; d > behind && d <= r.cfg.Lease.Milliseconds()/2 {
			behind = d
		}
	}
	return time.Duration(behind) * time.Millisecond
}

// pageFacts are one row's facts as the page's lock statement and its probe
// of runs read them.
type pageFacts struct {
	commitFacts
	// occurred: the occurrence the row's decision admits already has its
	// Run.
	occurred bool
	// locked: the lock statement answered for the row (it exists).
	locked bool
}

// pageLock is what lockPage read, by the decision's position in the group:
// a slice the page's positions index, where a map cost an allocation per
// row (its values are too large to be kept in its buckets).
type pageLock []pageFacts

// at is the facts of the row of position i, and whether the lock found it.
func (l pageLock) at(i int) (pageFacts, bool) { return l[i], l[i].locked }

// commitGroupOnce is one transaction attempt for a group. It returns an
// error only for the group to be retried (a lost serialization race or
// deadlock, an idempotency key taken by an occurrence it cannot tell
// apart among several, or with waitForClock a database clock behind a
// row's decision time: clockBehindDecision); every other outcome is final
// and in the results.
func (r *Runtime) commitGroupOnce(ctx context.Context, group []schedule.CommitParams, probe, waitForClock bool) (out []schedule.CommitResult, retry error) {
	out = make([]schedule.CommitResult, len(group))
	conn, err := r.pool.Acquire(ctx)
	if err != nil {
		return settle(ctx, out, nil, err, false)
	}
	defer conn.Release()
	ended := false
	defer func() {
		if ended || conn.Conn().PgConn().IsClosed() {
			return
		}
		lost := rollback(ctx, conn)
		if lost != nil && retry != nil {
			// The group cannot be retried on a lost connection: the loss is
			// every decision's outcome, nothing was written.
			out = make([]schedule.CommitResult, len(group))
			for i := range out {
				out[i], out[i].Err = withRollbackLoss(schedule.CommitResult{}, retry, lost)
			}
			retry = nil
			return
		}
		for i := range out {
			out[i], out[i].Err = withRollbackLoss(out[i], out[i].Err, lost)
		}
	}()

	facts, err := lockPage(ctx, conn, group, probe)
	if err != nil {
		return settle(ctx, out, nil, err, false)
	}
	if wait := r.clockBehind(group, facts); wait > 0 && waitForClock {
		return nil, &clockBehindDecision{wait: wait}
	}
	// The decisions to write: an admission whose occurrence already has its
	// Run since the clock went back is passed over, and the overlap policy
	// may pass an admission over, or cancel the trigger's unfinished Runs
	// before it.
	eff := slices.Clone(group)
	var write []int
	for i, p := range group {
		f, ok := facts.at(i)
		var reason schedule.Reason
		if ok {
			reason = verifyTicket(p, f.commitFacts)
		}
		switch {
		case !ok:
			out[i] = schedule.ReasonScheduleMissing.Result()
		case reason != "":
			out[i] = reason.Result()
		case f.occurred && schedule.MayHaveItsRun(p.Ticket, p.Decision):
			// Admitted while the clock read later, before a check moved
			// the cursor back (commitOnce, passAdmittedBefore).
			eff[i] = clockWentBackPassed(p)
			write = append(write, i)
		case f.occurred:
			out[i] = schedule.ReasonOccurrenceExists.Result()
			out[i].Err = fmt.Errorf("commit of trigger %s: %w", p.Ticket.TriggerID, errIdempotency)
		default:
			write = append(write, i)
		}
	}
	if len(write) == 0 {
		return out, nil
	}
	// A failed cancel leaves the transaction holding part of one, so it
	// ends the whole attempt (nothing is written).
	overlap := make(map[int]overlapEffect)
	for _, i := range write {
		if eff[i], overlap[i], err = applyOverlap(ctx, conn, eff[i], facts[i].commitFacts); err != nil {
			return settle(ctx, out, write, err, false)
		}
	}
	args, err := pageWriteArgs(eff, write, facts, overlap)
	if err != nil {
		return settle(ctx, out, write, err, false)
	}
	// The write and COMMIT go out together, and a caller already gone must
	// not start them.
	if err := ctx.Err(); err != nil {
		return settle(ctx, out, write, err, false)
	}
	touched := make([]written, len(write))
	commitMaybeRan, err := writeAndCommit(ctx, conn, sqlCommitPageWrite, args, func(br pgx.BatchResults) error {
		rows, err := br.Query()
		if err != nil {
			return err
		}
		defer rows.Close()
		// One set of destinations for the whole group: made per row, they
		// were an allocation each.
		var ord int
		var w written
		// The last column, the cancels' guard, says nothing when the
		// statement succeeds: it only ever fails it (errFenceFailedAfterCancels).
		dest := []any{&ord, &w.schedules, &w.runs, &w.attempts, &w.events, &w.ledger, nil}
		for rows.Next() {
			ord, w = 0, written{}
			if err := rows.Scan(dest...); err != nil {
				return err
			}
			if ord < 1 || ord > len(touched) {
				return fmt.Errorf("the page's write answered for position %d of %d", ord, len(touched))
			}
			touched[ord-1] = w
		}
		return rows.Err()
	})
	var lost *lostAfterCommit
	if err != nil && !errors.As(err, &lost) {
		if errors.Is(err, errFenceFailedAfterCancels) {
			// A row's fence failed after its trigger's Runs were cancelled:
			// the write failed rather than let COMMIT keep those cancels
			// without the admission. The error does not say which row, and
			// one row's expiry must not fail the others: the group is
			// retried.
			return nil, err
		}
		if errors.Is(err, errIdempotency) && len(write) > 1 {
			// Which occurrence had its Run already (unprobed) or gained it
			// since the lock statement's snapshot the error does not say;
			// the retry probes for it (commitGroup).
			return nil, err
		}
		if res, _ := failure(ctx, err, commitMaybeRan); rowCaused(res.Reason) && ctx.Err() == nil && !commitMaybeRan && len(write) > 1 {
			// A write that failed for one row's content (a constraint, a
			// refused insert) failed the whole multi-row statement; the
			// error does not say which row, and one row's failure must never
			// fail the others.
			return nil, &rowWriteFailed{err: err}
		}
		return settle(ctx, out, write, err, commitMaybeRan)
	}
	ended = true
	var stops []string
	for k, i := range write {
		out[i] = writtenResult(eff[i], touched[k], facts[i].NowMs)
		// COMMIT answered, so the cancels before the write stand: that
		// row's write held, or it had none (the write fails the
		// transaction when a row's fence fails after cancels).
		out[i].Finished = overlap[i].finished
		stops = append(stops, overlap[i].stops...)
		if lost != nil {
			// COMMIT answered, so the outcome is known; the connection is
			// gone all the same, and the replica must learn it.
			loss := fmt.Errorf("%w (%s after COMMIT): %w", schedule.ErrUnavailable, schedule.ReasonConnectionLost, lost.err)
			out[i].Err = errors.Join(out[i].Err, loss)
		}
	}
	// The workers of the Runs those cancels asked to stop, as commitOnce
	// wakes them.
	notifyStopAsked(ctx, r.pool, stops)
	return out, nil
}

// settle ends an attempt on err: a retryable err is returned for the group
// to be retried; any other is classified as ScheduleCommit classifies it
// and becomes the result of the decisions in rows (every decision when rows
// is nil), the others keeping theirs.
func settle(ctx context.Context, out []schedule.CommitResult, rows []int, err error, commitSent bool) ([]schedule.CommitResult, error) {
	if retryable(err) {
		return nil, err
	}
	res, cerr := failure(ctx, err, commitSent)
	if rows == nil {
		for i := range out {
			out[i], out[i].Err = res, cerr
		}
		return out, nil
	}
	for _, i := range rows {
		out[i], out[i].Err = res, cerr
	}
	return out, nil
}

// writtenResult is the outcome of a decision the page's write was sent for,
// from the rows it reported touching for it; admittedAtMs is the lock
// statement's database time, the Runs' creation time.
func writtenResult(p schedule.CommitParams, w written, admittedAtMs int64) schedule.CommitResult {
	outcome := outcomeOf(p.Decision.Action)
	switch {
	case w == written{}:
		// The lock was held, so only the clock can have moved past expiry
		// between verification and the fenced update.
		return schedule.ReasonClaimExpired.Result()
	case w != expectedWrite(outcome, len(p.Decision.Passed)):
		// Impossible by construction of sqlCommitPageWrite (each insert
		// selects from the step before it); a changed statement that
		// breaks this must not be reported as a clean outcome.
		res := schedule.ReasonWriteFailed.Result()
		res.Err = fmt.Errorf("commit of trigger %s wrote %d schedule, %d run, %d attempt, %d event and %d ledger rows for %s", p.Ticket.TriggerID,
			w.schedules, w.runs, w.attempts, w.events, w.ledger, outcome)
		return res
	}
	// p's decision is the one written (applyOverlap's), and the write
	// inserted exactly its ledger entries (expectedWrite).
	res := schedule.CommitResult{Outcome: outcome, Passed: p.Decision.Passed}
	if outcome == schedule.Admitted {
		res.RunID, res.AdmittedAtMs = p.RunID, admittedAtMs
	}
	return res
}

// outcomeOf is the outcome of a decision whose write held.
func outcomeOf(a schedule.Action) schedule.Outcome {
	switch a {
	case schedule.Admit:
		return schedule.Admitted
	case schedule.SkipLate:
		return schedule.Skipped
	}
	return schedule.Initialized
}

// lockPage starts the group's transaction and locks its rows, returning
// each found row's facts by its decision's position in the group. The lock
// keeps its cached generic plan, written to stay primary-key lookups per
// row whatever the statistics (sql/commit_page.sql, CommitPageLock). The
// page's Runs are read (CommitPageProbe, planned each time it runs for the
// table's size at that moment; that file says why, and why it reads what
// the lock saw) only where a decision needs them: with probe set, in the
// lock's round trip, for every admission of the page (the retry after an
// occurrence of the group turned out to have its Run already); otherwise,
// in a second round trip after the lock, only when an admission's trigger
// has an overlap policy, which needs its unfinished Runs, or when an
// admission's occurrence may have its Run since the clock went back
// (schedule.MayHaveItsRun: it is then passed over, not refused). Without
// any of these, a Run that already exists is found by the write
// (runs_idempotency_key fails it) and the group is retried with probe set:
// a replay is rare, and every other page saves the probe, the most costly
// statement of its transaction after the write.
func lockPage(ctx context.Context, conn *pgxpool.Conn, group []schedule.CommitParams, probe bool) (pageLock, error) {
	ids := newUUIDColumn(len(group))
	for i := range group {
		ids.set(i, &group[i].Ticket.TriggerID)
	}
	b := &pgx.Batch{}
	b.Queue(sqlBeginAdmission)
	b.Queue(sqlGenericPlans)
	b.Queue(sqlCommitPageLock, ids.param())
	if probe {
		queueProbe(b, group)
	}
	br := conn.SendBatch(ctx, b)
	defer br.Close()
	for range 2 {
		if _, err := br.Exec(); err != nil {
			return nil, err
		}
	}
	facts := make(pageLock, len(group))
	scan := newFactsScan(newPageDefs())
	var ord int
	scan.then(&ord)
	err := eachRow(br, len(group), "lock", func(rows pgx.Rows) (int, error) {
		if err := scan.scan(rows, ""); err != nil {
			return 0, err
		}
		if ord >= 1 && ord <= len(group) {
			scan.f.Trigger.TriggerID = group[ord-1].Ticket.TriggerID
			facts[ord-1] = pageFacts{commitFacts: scan.f, locked: true}
		}
		return ord, nil
	})
	if err != nil {
		return nil, err
	}
	if probe {
		if err := readProbe(br, group, facts); err != nil {
			return nil, err
		}
		return facts, br.Close()
	}
	if err := br.Close(); err != nil {
		return nil, err
	}
	if !needsRuns(group, facts) {
		return facts, nil
	}
	b = &pgx.Batch{}
	queueProbe(b, group)
	br = conn.SendBatch(ctx, b)
	defer br.Close()
	if err := readProbe(br, group, facts); err != nil {
		return nil, err
	}
	return facts, br.Close()
}

// needsRuns reports whether an admission of the group is for a trigger
// with an overlap policy, whose decision depends on the trigger's
// unfinished Runs, or may find its occurrence admitted already while the
// clock read later, which is written passed over only when the probe says
// so.
func needsRuns(group []schedule.CommitParams, facts pageLock) bool {
	for i, p := range group {
		f, ok := facts.at(i)
		if !ok || p.Decision.Action != schedule.Admit {
			continue
		}
		if f.Trigger.Spec.Cron.Overlap != trigger.OverlapAllow || schedule.MayHaveItsRun(p.Ticket, p.Decision) {
			return true
		}
	}
	return false
}

// queueProbe queues the probe of the group's Runs, planned for its own
// parameters (CustomPlans), with the cached plans set again after it.
func queueProbe(b *pgx.Batch, group []schedule.CommitParams) {
	ids := newUUIDColumn(len(group))
	keys := make(elems[pgtype.Text], len(group))
	for i, p := range group {
		ids.set(i, &group[i].Ticket.TriggerID)
		if p.Decision.Action == schedule.Admit {
			keys[i] = pgtype.Text{String: schedule.IdempotencyKey(p.Ticket.TriggerID, p.Ticket.TriggerRevision, p.Decision.ScheduledForMs), Valid: true}
		}
	}
	b.Queue(sqlCustomPlans)
	b.Queue(sqlCommitPageProbe, ids.param(), keys)
	b.Queue(sqlGenericPlans)
}

// readProbe reads the results queueProbe queued into facts.
func readProbe(br pgx.BatchResults, group []schedule.CommitParams, facts pageLock) error {
	if _, err := br.Exec(); err != nil {
		return err
	}
	err := eachRow(br, len(group), "probe of runs", func(rows pgx.Rows) (int, error) {
		var ord int
		var occurred bool
		var unfinished []string
		var waiting pgtype.Text
		if err := rows.Scan(&ord, &occurred, &unfinished, &waiting); err != nil {
			return 0, err
		}
		// A row the lock did not answer for is judged missing whatever
		// the probe says.
		if ord >= 1 && ord <= len(facts) && facts[ord-1].locked {
			facts[ord-1].occurred, facts[ord-1].Unfinished, facts[ord-1].Waiting = occurred, unfinished, waiting.String
		}
		return ord, nil
	})
	if err != nil {
		return err
	}
	_, err = br.Exec()
	return err
}

// eachRow reads the next result of br row by row through scan, which
// returns the row's position in the group (from 1); a position outside
// the group's n is an error naming what answered.
func eachRow(br pgx.BatchResults, n int, what string, scan func(pgx.Rows) (int, error)) error {
	rows, err := br.Query()
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		ord, err := scan(rows)
		if err != nil {
			return err
		}
		if ord < 1 || ord > n {
			return fmt.Errorf("the page's %s answered for position %d of %d", what, ord, n)
		}
	}
	return rows.Err()
}

// pageWriteArgs are sqlCommitPageWrite's arguments for the verified
// decisions group[write...]: one array element per decision, each array
// encoded in binary from its elements (array_params.go).
func pageWriteArgs(group []schedule.CommitParams, write []int, facts pageLock, overlap map[int]overlapEffect) ([]any, error) {
	n := len(write)
	var (
		tids                                        = make(elems[pgtype.TID], n)
		triggerIDs, tokens                          = newUUIDColumn(n), newUUIDColumn(n)
		runIDs, projectIDs, taskIDs, attemptIDs     = newUUIDColumn(n), newUUIDColumn(n), newUUIDColumn(n), newUUIDColumn(n)
		replaces                                    = newUUIDColumn(n)
		owners, execIDs                             = make(elems[pgtype.Text], n), make(elems[pgtype.Text], n)
		revisions, versions, claimVersions, expires = make(elems[pgtype.Int8], n), make(elems[pgtype.Int8], n), make(elems[pgtype.Int8], n), make(elems[pgtype.Int8], n)
		acquired, nextCur, cursors, lastScheduled   = make(elems[pgtype.Int8], n), make(elems[pgtype.Int8], n), make(elems[pgtype.Int8], n), make(elems[pgtype.Int8], n)
		taskRevisions, scheduledFor, nextDue, dueAt = make(elems[pgtype.Int8], n), make(elems[pgtype.Int8], n), make(elems[pgtype.Int8], n), make(elems[pgtype.Int8], n)
		keys, created, queued                       = pageAdmissionTexts(group, write, facts)
		waiting, cancelled                          = make(elems[pgtype.Bool], n), make(elems[pgtype.Bool], n)
	)
	val := func(v int64) pgtype.Int8 { return pgtype.Int8{Int64: v, Valid: true} }
	var nowMs int64
	var ledgerRows []int64
	var passed []schedule.Passed
	for k, i := range write {
		p := group[i]
		tk, l, d := p.Ticket, p.Ticket.Lease, p.Decision
		f := facts[i]
		nowMs, tids[k] = f.NowMs, f.TID
		triggerIDs.set(k, &group[i].Ticket.TriggerID)
		revisions[k], versions[k], cursors[k] = val(tk.TriggerRevision), val(tk.StateVersion), int8Of(tk.NextFireAtMs)
		owners[k] = pgtype.Text{String: l.Owner, Valid: true}
		tokens.set(k, &l.Token)
		claimVersions[k], expires[k], acquired[k] = val(l.ClaimVersion), val(l.ExpiresAtMs), val(l.AcquiredAtMs)
		nextCur[k], nextDue[k] = val(d.NextFireAtMs), int8Of(d.NextDueOffset())
		for range d.Passed {
			ledgerRows = append(ledgerRows, int64(k+1))
		}
		passed = append(passed, d.Passed...)
		cancelled[k] = pgtype.Bool{Bool: overlap[i].cancelled, Valid: true}
		if d.Action != schedule.Admit {
			continue
		}
		lastScheduled[k], scheduledFor[k], dueAt[k] = val(d.ScheduledForMs), val(d.ScheduledForMs), val(d.FireAtMs)
		runIDs.set(k, &group[i].RunID)
		projectIDs.set(k, &group[i].Ticket.ProjectID)
		taskIDs.set(k, &group[i].Ticket.TaskID)
		attemptIDs.set(k, &group[i].AttemptID)
		taskRevisions[k] = val(tk.TaskRevision)
		execIDs[k] = pgtype.Text{String: f.Execution.ID, Valid: true}
		waiting[k] = pgtype.Bool{Bool: overlap[i].waits, Valid: true}
		if r := overlap[i].replaces; r != "" {
			replaces.set(k, &r)
		}
	}
	args := ledgerArgs(passed)
	args["ledger_row"] = ledgerRows
	maps.Copy(args, pgx.StrictNamedArgs{
		"tid": tids, "trigger_id": triggerIDs.param(), "trigger_revision": revisions, "state_version": versions, "fence_cursor": cursors,
		"claim_owner": owners, "claim_token": tokens.param(), "claim_version": claimVersions, "expires_at_ms": expires,
		"acquired_at_ms": acquired, "next_cursor": nextCur, "next_due_offset_ms": nextDue, "last_scheduled_at_ms": lastScheduled,
		"run_id": runIDs.param(), "project_id": projectIDs.param(), "task_id": taskIDs.param(), "task_revision": taskRevisions,
		"execution_revision_id": execIDs, "idempotency_key": keys, "scheduled_for_ms": scheduledFor, "due_at_ms": dueAt,
		"attempt_id": attemptIDs.param(), "created_payload": created, "queued_payload": queued, "waits": waiting,
		"replaces": replaces.param(), "cancelled": cancelled, "admitted_at_ms": nowMs, "executor": string(task.RemoteWorker),
		"created_event": run.EventCreated, "queued_event": run.EventQueued,
	})
	return commitPageWriteParams.args(args)
}

// rowWriteFailed marks a multi-row write that failed for the content of a
// row it cannot name: the group is split until the failing row is alone.
type rowWriteFailed struct{ err error }

func (e *rowWriteFailed) Error() string { return "a row of the page's write failed: " + e.err.Error() }

func (e *rowWriteFailed) Unwrap() error { return e.err }

// rowCaused reports whether a failed write can be the doing of one row's
// content, not of the database or the caller (a timeout, a held lock, a
// cancellation fail every row alike and are not split).
func rowCaused(r schedule.Reason) bool {
	return r == schedule.ReasonConstraintViolation || r == schedule.ReasonWriteFailed
}
