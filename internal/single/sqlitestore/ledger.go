package sqlitestore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

var (
	_ schedule.Pauser       = (*Store)(nil)
	_ schedule.DetailReader = (*Store)(nil)
)

// writeLedger appends a committed decision's passed-over occurrences to the
// occurrence ledger, in the decision's transaction (or savepoint) and only
// after its fenced cursor update held. Each LedgerKeep-th entry of a
// trigger compacts the entries older than its newest LedgerKeep: one
// bounded batch per LedgerKeep entries.
func writeLedger(ctx context.Context, tx *txn, tk schedule.Ticket, passed []schedule.Passed, now int64) error {
	if len(passed) == 0 {
		return nil
	}
	var seq int64
	if err := tx.QueryRowContext(ctx, qLedgerLastSeq, tk.TriggerID).Scan(&seq); err != nil {
		return err
	}
	skips, err := skipNotifier(ctx, tx, tk)
	if err != nil {
		return err
	}
	for _, p := range passed {
		seq++
		if _, err := tx.ExecContext(ctx, qLedgerInsert, tk.TriggerID, seq, tk.TriggerRevision, string(p.Reason),
			p.FirstMs, p.LastMs, p.Count, boolInt(p.AtLeast), now); err != nil {
			return err
		}
		if err := skips(seq, p, now); err != nil {
			return err
		}
		if cutoff := seq - schedule.LedgerKeep; seq%schedule.LedgerKeep == 0 && cutoff > 0 {
			if _, err := tx.ExecContext(ctx, qLedgerCompact, tk.TriggerID, cutoff, now); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, qLedgerTrim, tk.TriggerID, cutoff); err != nil {
				return err
			}
		}
	}
	return nil
}

// TriggerPause pauses or resumes a trigger's schedule row with its audit
// record, in one transaction at the injected clock's time.
func (s *Store) TriggerPause(ctx context.Context, r schedule.PauseRequest) (schedule.PauseResult, error) {
	if err := r.Validate(); err != nil {
		return schedule.PauseResult{}, err
	}
	var out schedule.PauseResult
	err := s.write(ctx, "pause trigger "+r.TriggerID, routine, func(tx *txn) error {
		before, err := pauseState(ctx, tx, r.TriggerID)
		if err != nil {
			return err
		}
		switch {
		case r.Pause && before.WithProject:
			err = ownPause(ctx, tx, r, s.nowMs())
		case before.Paused == r.Pause:
			out = before
			return nil
		default:
			err = pauseRow(ctx, tx, r, s.nowMs())
		}
		if err != nil {
			return err
		}
		out, err = pauseState(ctx, tx, r.TriggerID)
		out.Changed = true
		return err
	})
	return out, err
}

// pauseRow pauses or resumes one schedule row not yet in the state asked
// for and writes its audit record, at now (a pause at its start,
// schedule.PauseStart).
func pauseRow(ctx context.Context, tx *txn, r schedule.PauseRequest, now int64) error {
	q, args, action := qScheduleResume, []any{r.TriggerID, now}, "resume"
	if r.Pause {
		now = schedule.PauseStart(r.SinceMs, now)
		q, args, action = qSchedulePause, []any{r.TriggerID, nullString(r.Note), now}, "pause"
	}
	res, err := tx.ExecContext(ctx, q, args...)
	if err != nil {
		return err
	}
	if err := exactlyOne(res, qlerror.Conflict, "the schedule of trigger %s changed concurrently", r.TriggerID); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, qScheduleAuditInsert, r.TriggerID, action, r.Actor, nullString(r.Note), now)
	return err
}

// ownPause makes the pause its project's pause gave a row the trigger's
// own, with the request's note, and records it as a pause.
func ownPause(ctx context.Context, tx *txn, r schedule.PauseRequest, now int64) error {
	res, err := tx.ExecContext(ctx, qSchedulePauseOwn, r.TriggerID, nullString(r.Note))
	if err != nil {
		return err
	}
	if err := exactlyOne(res, qlerror.Conflict, "the schedule of trigger %s changed concurrently", r.TriggerID); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, qScheduleAuditInsert, r.TriggerID, "pause", r.Actor, nullString(r.Note), now)
	return err
}

// pauseState reads a row's pause state; AtMs is the pause's start while
// paused, else the last resume (0 if never).
func pauseState(ctx context.Context, tx *txn, triggerID string) (schedule.PauseResult, error) {
	var paused, withProject int
	var note sql.NullString
	var pausedAt, resumedAt sql.NullInt64
	err := tx.QueryRowContext(ctx, qSchedulePauseState, triggerID).Scan(&paused, &note, &pausedAt, &resumedAt, &withProject)
	if errors.Is(err, sql.ErrNoRows) {
		return schedule.PauseResult{}, qlerror.New(qlerror.NotFound, "trigger %s has no schedule; `ql triggers list` shows the triggers", triggerID).Because(schedule.RefusalTriggerMissing)
	}
	if err != nil {
		return schedule.PauseResult{}, err
	}
	out := schedule.PauseResult{Paused: paused == 1, AtMs: resumedAt.Int64}
	if out.Paused {
		// The note is the pause's: a resumed row keeps its last one for
		// the record, but no pause is in force to carry it.
		out.AtMs, out.Note, out.WithProject = pausedAt.Int64, note.String, withProject == 1
	}
	return out, nil
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// TriggerDetail reads a trigger's status, pause state, newest ledger
// entries and newest audit records in one read transaction, at the
// injected clock's time.
func (s *Store) TriggerDetail(ctx context.Context, triggerID string, ledgerLimit int) (schedule.TriggerDetail, error) {
	if err := ids.Validate("trigger id", triggerID); err != nil {
		return schedule.TriggerDetail{}, schedule.NotATriggerID(triggerID, err)
	}
	var d schedule.TriggerDetail
	err := s.read(ctx, "show trigger", func(tx *txn) error {
		t := &d.TriggerStatus
		var enabled, paused, archived, withProject int
		var next, due, last, pausedAt sql.NullInt64
		var note sql.NullString
		var pol policyCols
		err := tx.QueryRowContext(ctx, qTriggerDetail, triggerID).Scan(&t.ProjectID, &t.ProjectName, &t.TriggerID, &t.Name, &t.Revision, &enabled,
			&t.Cron.Expression, &t.Cron.Timezone, &t.Cron.MisfirePolicy, &pol.jitter, &pol.start, &pol.end, &pol.window, &pol.overlap,
			&t.TaskID, &t.TaskName, &t.TaskRevision, &next, &due, &last, &t.StateVersion, &paused, &note, &pausedAt, &archived, &withProject,
			&t.Title, &t.TaskTitle, &t.ProjectTitle)
		if errors.Is(err, sql.ErrNoRows) {
			return schedule.TriggerMissing(triggerID)
		}
		if err != nil {
			return err
		}
		pol.into(&t.Cron)
		t.Enabled, t.LastScheduledAtMs = enabled == 1, ptr(last)
		t.SetCursor(ptr(next), ptr(due))
		t.SetArchived(archived == 1)
		// The row keeps the last pause's note and time after a resume; a
		// detail shows them only while the pause is in force.
		if d.Paused = paused == 1; d.Paused {
			d.PauseNote, d.PausedAtMs = note.String, ptr(pausedAt)
			t.PausedWithProject = withProject == 1
		}
		rows, err := tx.QueryContext(ctx, qLedgerOfTrigger, triggerID, ledgerLimit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			e := schedule.LedgerEntry{TriggerID: triggerID}
			var atLeast, compacted int
			if err := rows.Scan(&e.TriggerRevision, &e.Reason, &e.FirstMs, &e.LastMs, &e.Count, &atLeast, &e.RecordedAtMs, &compacted, &e.Backfilled); err != nil {
				return err
			}
			e.AtLeast, e.Compacted = atLeast == 1, compacted == 1
			d.Ledger = append(d.Ledger, e)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		d.Audit, err = auditOfTrigger(ctx, tx, triggerID)
		return err
	})
	d.NowMs = s.nowMs()
	return d, err
}

// auditOfTrigger reads a trigger's newest schedule.AuditShown+1 audit
// records, newest first.
func auditOfTrigger(ctx context.Context, tx *txn, triggerID string) ([]schedule.AuditRecord, error) {
	rows, err := tx.QueryContext(ctx, qAuditOfTrigger, triggerID, schedule.AuditShown+1)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []schedule.AuditRecord
	for rows.Next() {
		var a schedule.AuditRecord
		var note sql.NullString
		if err := rows.Scan(&a.Action, &a.Actor, &note, &a.AtMs); err != nil {
			return nil, err
		}
		a.Note = note.String
		out = append(out, a)
	}
	return out, rows.Err()
}
