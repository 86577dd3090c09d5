package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// TriggerByName returns the current revision of the named trigger, its
// digest verified.
func (s *Store) TriggerByName(ctx context.Context, projectID, name string) (trigger.Revision, error) {
	r, err := scanTrigger(s.readPool().QueryRowContext(ctx, qTriggerByName, projectID, name))
	if errors.Is(err, sql.ErrNoRows) {
		return r, qlerror.New(qlerror.NotFound, "trigger %q does not exist in project %s", name, projectID)
	}
	return r, mapErr(err, "read trigger "+name)
}

// scanTrigger reads a current trigger revision and verifies its digest.
func scanTrigger(row interface{ Scan(...any) error }) (trigger.Revision, error) {
	var r trigger.Revision
	var enabled int
	var pol policyCols
	err := row.Scan(&r.TriggerID, &r.ProjectID, &r.TaskID, &r.Revision, &r.TaskRevision, &r.TaskContentDigest,
		&r.Spec.Name, &enabled, &r.Spec.Cron.Expression, &r.Spec.Cron.Timezone, &r.Spec.Cron.MisfirePolicy,
		&r.ContentDigest, &r.MutationID, &r.CreatedAtMs, &pol.jitter, &pol.start, &pol.end, &pol.window, &pol.overlap)
	if err != nil {
		return r, err
	}
	pol.into(&r.Spec.Cron)
	r.Spec.Enabled = enabled == 1
	return r, r.VerifyDigest()
}

// TriggerPublish appends a trigger revision and resets its schedule row in
// the same transaction.
func (s *Store) TriggerPublish(ctx context.Context, p catalog.TriggerPublishParams) (catalog.PublishResult, error) {
	var res catalog.PublishResult
	err := s.Publish(ctx, func(tx catalog.Tx) error {
		out, err := tx.TriggersPublish(ctx, []catalog.TriggerPublishParams{p})
		if err != nil {
			return unwrapItem(err)
		}
		res = out[0]
		return nil
	})
	return res, err
}

// TriggersPublish appends the trigger revisions of ps and resets their
// schedule rows: per item, an active project, mutation-id replay, the
// pinned task revision and the head's fences, read for the whole batch at
// once.
func (c *catalogTx) TriggersPublish(ctx context.Context, ps []catalog.TriggerPublishParams) ([]catalog.PublishResult, error) {
	if err := catalog.CheckTriggersDistinct(ps); err != nil {
		return nil, err
	}
	ids, pairs := make([]string, len(ps)), make([][2]string, len(ps))
	for i, p := range ps {
		r := p.Revision
		if err := r.VerifyDigest(); err != nil {
			return nil, &catalog.ItemError{Index: i, Err: err}
		}
		if err := c.activeProject(ctx, r.ProjectID); err != nil {
			return nil, &catalog.ItemError{Index: i, Err: err}
		}
		ids[i], pairs[i] = r.TriggerID, [2]string{r.TriggerID, r.MutationID}
	}
	done, err := replays(ctx, c.tx, qTriggerReplays, pairs)
	if err != nil {
		return nil, err
	}
	pins, err := c.pins(ctx, ps)
	if err != nil {
		return nil, err
	}
	heads, err := c.triggerHeads(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]catalog.PublishResult, len(ps))
	for i, p := range ps {
		r := p.Revision
		if s, ok := done[r.TriggerID]; ok {
			if out[i], err = catalog.CheckReplay(s, "trigger", r.TriggerID, r.Spec.Name, r.MutationID, r.Revision, r.ContentDigest); err != nil {
				return nil, &catalog.ItemError{Index: i, Err: err}
			}
			continue
		}
		v, found := pins[pinKey{r.TaskID, r.TaskRevision}]
		if err := catalog.CheckPin(r, v, found); err != nil {
			return nil, &catalog.ItemError{Index: i, Err: err}
		}
		if err := c.writeTrigger(ctx, r, heads[r.TriggerID], p.Audit); err != nil {
			return nil, &catalog.ItemError{Index: i, Err: err}
		}
		out[i] = catalog.PublishResult{Revision: r.Revision, CreatedAtMs: c.now}
	}
	return out, nil
}

// pinKey names a task revision a trigger pins.
type pinKey struct {
	taskID   string
	revision int64
}

// pins reads every task revision the batch pins.
func (c *catalogTx) pins(ctx context.Context, ps []catalog.TriggerPublishParams) (map[pinKey]catalog.PinnedTask, error) {
	var keys [][2]any
	want := map[pinKey]bool{}
	for _, p := range ps {
		k := pinKey{p.Revision.TaskID, p.Revision.TaskRevision}
		if !want[k] {
			want[k] = true
			keys = append(keys, [2]any{k.taskID, k.revision})
		}
	}
	js, err := json.Marshal(keys)
	if err != nil {
		return nil, err
	}
	rows, err := c.tx.QueryContext(ctx, qTaskRevisionPins, string(js))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[pinKey]catalog.PinnedTask, len(keys))
	for rows.Next() {
		var k pinKey
		var v catalog.PinnedTask
		var enabled int
		if err := rows.Scan(&k.taskID, &k.revision, &v.ProjectID, &v.Digest, &enabled); err != nil {
			return nil, err
		}
		v.Enabled = enabled == 1
		out[k] = v
	}
	return out, rows.Err()
}

func (c *catalogTx) triggerHeads(ctx context.Context, ids []string) (map[string]catalog.Head, error) {
	js, err := idsJSON(ids)
	if err != nil {
		return nil, err
	}
	rows, err := c.tx.QueryContext(ctx, qTriggerHeads, js)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[string]catalog.Head, len(ids))
	for rows.Next() {
		var id string
		h := catalog.Head{Exists: true}
		if err := rows.Scan(&id, &h.ProjectID, &h.TaskID, &h.Current); err != nil {
			return nil, err
		}
		out[id] = h
	}
	return out, rows.Err()
}

// writeTrigger fences one revision on its head, moves the head, writes the
// revision, resets the schedule row and writes the audit record, if any.
func (c *catalogTx) writeTrigger(ctx context.Context, r trigger.Revision, h catalog.Head, audit *catalog.Audit) error {
	tx := c.tx
	expected := r.Revision - 1
	if err := catalog.CheckTriggerHead(r, h); err != nil {
		return err
	}
	if !h.Exists {
		if _, err := tx.ExecContext(ctx, qTriggerInsert, r.TriggerID, r.ProjectID, r.TaskID, r.Spec.Name, c.now, c.now); err != nil {
			return nameTaken(err, "trigger", r.Spec.Name, r.ProjectID)
		}
	} else {
		res, err := tx.ExecContext(ctx, qTriggerAdvance, r.Spec.Name, r.Revision, c.now, r.TriggerID, expected)
		if err != nil {
			return nameTaken(err, "trigger", r.Spec.Name, r.ProjectID)
		}
		if err := exactlyOne(res, qlerror.Conflict, "trigger %q moved past revision %d during the publish; re-read it and publish again", r.Spec.Name, expected); err != nil {
			return err
		}
	}
	args := append([]any{r.TriggerID, r.Revision, r.ProjectID, r.TaskID, r.TaskRevision, r.TaskContentDigest,
		r.Spec.Name, boolInt(r.Spec.Enabled), r.Spec.Cron.Expression, r.Spec.Cron.Timezone, string(r.Spec.Cron.MisfirePolicy),
		r.ContentDigest, r.MutationID, c.now}, policyArgs(r.Spec.Cron)...)
	if _, err := tx.ExecContext(ctx, qTriggerRevisionInsert, args...); err != nil {
		return err
	}
	if h.Exists {
		if err := c.recordSuperseded(ctx, r.TriggerID); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, qScheduleReset, r.TriggerID, r.ProjectID, r.Revision, boolInt(r.Spec.Enabled), c.now); err != nil {
		return err
	}
	if !h.Exists {
		if err := c.auditPausedAtPublish(ctx, r.TriggerID); err != nil {
			return err
		}
	}
	if audit == nil {
		return nil
	}
	_, err := tx.ExecContext(ctx, qScheduleAuditInsert, r.TriggerID, audit.Action, audit.Actor, nil, c.now)
	return err
}

// auditPausedAtPublish writes the audit record of the pause a new
// trigger's schedule row started with, its project being paused: a pause
// like any other (its start is its record's time), its actor saying whose
// pause it is and that the publish applied it.
func (c *catalogTx) auditPausedAtPublish(ctx context.Context, triggerID string) error {
	var note sql.NullString
	var actor string
	err := c.tx.QueryRowContext(ctx, qSchedulePublishedPaused, triggerID).Scan(&note, &actor)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = c.tx.ExecContext(ctx, qScheduleAuditInsert, triggerID, "pause", schedule.PausedAtPublishActor(actor), note, c.now)
	return err
}

// recordSuperseded writes to the occurrence ledger what the publish owes
// for the revision it replaces (schedule.PassedAtPublish), before the
// schedule row's reset moves its cursor past them.
func (c *catalogTx) recordSuperseded(ctx context.Context, triggerID string) error {
	var s schedule.Superseded
	var enabled, paused int
	var pol policyCols
	err := c.tx.QueryRowContext(ctx, qScheduleSuperseded, triggerID).Scan(&s.Revision, &enabled,
		&s.Cron.Expression, &s.Cron.Timezone, &s.Cron.MisfirePolicy, &s.CreatedAtMs,
		&pol.jitter, &pol.start, &pol.end, &pol.window, &pol.overlap,
		&s.CursorMs, &paused, &s.PausedAtMs, &s.ResumedAtMs)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	pol.into(&s.Cron)
	s.Enabled, s.Paused = enabled == 1, paused == 1
	passed := schedule.PassedAtPublish(s, c.now)
	return writeLedger(ctx, c.tx, schedule.Ticket{Snapshot: schedule.Snapshot{TriggerID: triggerID, TriggerRevision: s.Revision}}, passed, c.now)
}
