package pgstore

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

var (
	_ schedule.Pauser       = (*Admin)(nil)
	_ schedule.Pauser       = (*Runtime)(nil)
	_ schedule.DetailReader = (*Runtime)(nil)
)

// TriggerPause pauses or resumes a trigger's schedule as the admin role
// (`ql triggers pause` with the admin role's URL).
func (a *Admin) TriggerPause(ctx context.Context, r schedule.PauseRequest) (schedule.PauseResult, error) {
	return triggerPause(ctx, a.pool, r)
}

// TriggerPause pauses or resumes a trigger's schedule as the runtime role,
// so that a replica's API and console can: the role updates schedule rows
// already (claims, cursors) and may append to the pause audit trail, but
// never change or delete an audit record.
func (r *Runtime) TriggerPause(ctx context.Context, req schedule.PauseRequest) (schedule.PauseResult, error) {
	return triggerPause(ctx, r.pool, req)
}

// triggerPause pauses or resumes in one SERIALIZABLE transaction (as
// publishing, whose eligibility rule it shares): the row is locked,
// changed, its `schedulable` flag recomputed and the audit record written,
// all at database time. Asking for the state the row is already in writes
// nothing and reports Changed false.
func triggerPause(ctx context.Context, pool *pgxpool.Pool, r schedule.PauseRequest) (schedule.PauseResult, error) {
	if err := r.Validate(); err != nil {
		return schedule.PauseResult{}, err
	}
	var out schedule.PauseResult
	err := serializable(ctx, pool, func(tx pgx.Tx) error {
		var note *string
		var pausedAt, resumedAt *int64
		var auditReadable bool
		err := tx.QueryRow(ctx, sqlSchedulePauseState, r.TriggerID).Scan(&out.Paused, &note, &pausedAt, &resumedAt, &auditReadable, &out.WithProject)
		if errors.Is(err, pgx.ErrNoRows) {
			return qlerror.New(qlerror.NotFound, "trigger %s has no schedule; `ql triggers list` shows the triggers", r.TriggerID).Because(schedule.RefusalTriggerMissing)
		}
		if err != nil {
			return err
		}
		out.Changed = false
		out.AtMs = derefInt(resumedAt)
		if r.Pause && out.WithProject {
			if err := tx.QueryRow(ctx, sqlSchedulePauseOwn, r.TriggerID, nonEmpty(r.Note)).Scan(&out.AtMs); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, sqlScheduleAuditInsert, ids.New(), r.TriggerID, "pause", r.Actor, nonEmpty(r.Note), out.AtMs); err != nil {
				return err
			}
			started, err := pauseStartedAt(ctx, tx, r.TriggerID, auditReadable, pausedAt)
			out.Changed, out.WithProject, out.Note, out.AtMs = true, false, r.Note, derefInt(started)
			return err
		}
		if out.Paused == r.Pause {
			if out.Paused {
				// The note is the pause's: a resumed row keeps its last
				// one for the record, but no pause is in force to carry it.
				started, err := pauseStartedAt(ctx, tx, r.TriggerID, auditReadable, pausedAt)
				out.AtMs, out.Note = derefInt(started), deref(note)
				return err
			}
			return nil
		}
		var since *int64
		if r.Pause && r.SinceMs > 0 {
			since = &r.SinceMs
		}
		at, err := pauseRow(ctx, tx, r, since)
		out.Changed, out.Paused, out.WithProject, out.Note, out.AtMs = true, r.Pause, false, "", at
		if r.Pause {
			out.Note = r.Note
		}
		return err
	})
	return out, mapErr(err, "pausing or resuming trigger "+r.TriggerID)
}

// pauseRow pauses or resumes one schedule row not yet in the state asked
// for, refreshes its eligibility and writes its audit record, at the time
// given (nil: the database's now), which it returns.
func pauseRow(ctx context.Context, tx pgx.Tx, r schedule.PauseRequest, at *int64) (int64, error) {
	q, args, action := sqlScheduleResume, []any{r.TriggerID, at}, "resume"
	if r.Pause {
		q, args, action = sqlSchedulePause, []any{r.TriggerID, nonEmpty(r.Note), at}, "pause"
	}
	var ms int64
	if err := tx.QueryRow(ctx, q, args...).Scan(&ms); err != nil {
		return 0, err
	}
	if err := refreshEligibility(ctx, tx, sqlEligibilityOfTriggers, []string{r.TriggerID}); err != nil {
		return 0, err
	}
	_, err := tx.Exec(ctx, sqlScheduleAuditInsert, ids.New(), r.TriggerID, action, r.Actor, nonEmpty(r.Note), ms)
	return ms, err
}

// pauseStartedAt is when the pause in force on triggerID began: its audit
// record's time (SchedulePauseStarted). pausedAtMs, the row's, stands in
// when this role may not read the audit trail (readable false: asking
// would fail the transaction) or the trail holds no pause.
func pauseStartedAt(ctx context.Context, tx pgx.Tx, triggerID string, readable bool, pausedAtMs *int64) (*int64, error) {
	if !readable {
		return pausedAtMs, nil
	}
	var at int64
	err := tx.QueryRow(ctx, sqlSchedulePauseStart, triggerID).Scan(&at)
	if errors.Is(err, pgx.ErrNoRows) {
		return pausedAtMs, nil
	}
	if err != nil {
		return nil, err
	}
	return &at, nil
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// TriggerDetail reads a trigger's status, pause state, the database clock,
// its newest ledger entries and newest audit records in one REPEATABLE
// READ snapshot. A role that may not read the audit trail gets the rest
// with AuditUnreadable set: the privilege is asked of the catalog first,
// since a denied SELECT would abort the snapshot.
func (r *Runtime) TriggerDetail(ctx context.Context, triggerID string, ledgerLimit int) (schedule.TriggerDetail, error) {
	if err := ids.Validate("trigger id", triggerID); err != nil {
		return schedule.TriggerDetail{}, schedule.NotATriggerID(triggerID, err)
	}
	var d schedule.TriggerDetail
	err := runTx(ctx, r.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		t := &d.TriggerStatus
		var policy string
		var note *string
		var pol policyCols
		var cursor, due *int64
		var archived, auditReadable bool
		err := tx.QueryRow(ctx, sqlTriggerDetail, triggerID).Scan(&t.ProjectID, &t.ProjectName, &t.TriggerID, &t.Name, &t.Revision, &t.Enabled,
			&t.Cron.Expression, &t.Cron.Timezone, &policy, &pol.jitter, &pol.start, &pol.end, &pol.window, &pol.overlap,
			&t.TaskID, &t.TaskName, &t.TaskRevision, &cursor, &due, &t.LastScheduledAtMs,
			&t.StateVersion, &t.ClaimOwner, &t.ClaimExpiresAtMs, &d.Paused, &note, &d.PausedAtMs, &d.NowMs, &archived, &auditReadable, &t.PausedWithProject,
			&t.Title, &t.TaskTitle, &t.ProjectTitle)
		if errors.Is(err, pgx.ErrNoRows) {
			return schedule.TriggerMissing(triggerID)
		}
		if err != nil {
			return err
		}
		t.SetCursor(cursor, due)
		t.SetArchived(archived)
		t.Cron.MisfirePolicy = trigger.MisfirePolicy(policy)
		pol.into(&t.Cron)
		// The row keeps the last pause's note and time after a resume; a
		// detail shows them only while the pause is in force.
		if d.Paused {
			d.PauseNote = deref(note)
			if d.PausedAtMs, err = pauseStartedAt(ctx, tx, triggerID, auditReadable, d.PausedAtMs); err != nil {
				return err
			}
		} else {
			d.PausedAtMs = nil
		}
		rows, err := tx.Query(ctx, sqlLedgerOfTrigger, triggerID, ledgerLimit)
		if err != nil {
			return err
		}
		d.Ledger, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (schedule.LedgerEntry, error) {
			e := schedule.LedgerEntry{TriggerID: triggerID}
			var reason string
			err := row.Scan(&e.TriggerRevision, &reason, &e.FirstMs, &e.LastMs, &e.Count, &e.AtLeast, &e.RecordedAtMs, &e.Compacted, &e.Backfilled)
			e.Reason = schedule.PassReason(reason)
			return e, err
		})
		if err != nil {
			return err
		}
		if !auditReadable {
			d.AuditUnreadable = true
			return nil
		}
		rows, err = tx.Query(ctx, sqlAuditOfTrigger, triggerID, schedule.AuditShown+1)
		if err != nil {
			return err
		}
		d.Audit, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (schedule.AuditRecord, error) {
			var a schedule.AuditRecord
			var note *string
			err := row.Scan(&a.Action, &a.Actor, &note, &a.AtMs)
			a.Note = deref(note)
			return a, err
		})
		return err
	})
	return d, mapErr(err, "reading trigger "+triggerID)
}
