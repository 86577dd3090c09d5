package pgstore

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/digest"
	"github.com/qinglong/qinglong/internal/core/ids"
	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// TriggerByName returns the current revision of the named trigger, its
// digest verified.
func (a *Admin) TriggerByName(ctx context.Context, projectID, name string) (trigger.Revision, error) {
	r, err := scanTriggerRevision(a.pool.QueryRow(ctx, sqlTriggerCurrentByName, projectID, name))
	if errors.Is(err, pgx.ErrNoRows) {
		return trigger.Revision{}, qlerror.New(qlerror.NotFound, "trigger %q does not exist in project %s", name, projectID)
	}
	if err != nil {
		return trigger.Revision{}, mapErr(err, "reading trigger "+name)
	}
	return r, r.VerifyDigest()
}

func scanTriggerRevision(row pgx.Row) (trigger.Revision, error) {
	var r trigger.Revision
	var policy string
	var pol policyCols
	err := row.Scan(&r.TriggerID, &r.ProjectID, &r.TaskID, &r.Revision, &r.TaskRevision, &r.TaskContentDigest, &r.Spec.Name, &r.Spec.Enabled,
		&r.Spec.Cron.Expression, &r.Spec.Cron.Timezone, &policy, &r.ContentDigest, &r.MutationID, &r.CreatedAtMs,
		&pol.jitter, &pol.start, &pol.end, &pol.window, &pol.overlap)
	r.Spec.Cron.MisfirePolicy = trigger.MisfirePolicy(policy)
	pol.into(&r.Spec.Cron)
	return r, err
}

// TriggerPublish appends a trigger revision pinned to a task revision and
// upserts its schedule row in the same SERIALIZABLE transaction.
func (a *Admin) TriggerPublish(ctx context.Context, p catalog.TriggerPublishParams) (catalog.PublishResult, error) {
	var res catalog.PublishResult
	err := a.Publish(ctx, func(tx catalog.Tx) error {
		out, err := tx.TriggersPublish(ctx, []catalog.TriggerPublishParams{p})
		if err != nil {
			return err
		}
		res = out[0]
		return nil
	})
	if err != nil {
		return catalog.PublishResult{}, mapErr(unwrapItem(err), "publishing trigger "+p.Revision.Spec.Name)
	}
	return res, nil
}

// triggerWrites are the column arrays of a batch's trigger writes.
type triggerWrites struct {
	newIDs, newProjects, newTasks, newNames []string
	advIDs, advNames                        []string
	advRevisions                            []int64
	ids, projects, tasks, taskDigests       []string
	names, crons, zones, policies           []string
	digests, mutations                      []string
	revisions, taskRevisions, jitters       []int64
	starts, ends, windows                   []*int64
	overlaps                                []*string
	enabled                                 []bool
	audits                                  []audited
}

// audited is a trigger of the batch whose publish writes an audit record.
type audited struct {
	triggerID string
	audit     *catalog.Audit
}

// TriggersPublish appends the trigger revisions of ps and resets their
// schedule rows: per item the same fences as a single publish (active
// project, mutation-id replay, pinned task revision, expected revision, a
// trigger never moving to another task), in a few set-based statements.
func (t *adminTx) TriggersPublish(ctx context.Context, ps []catalog.TriggerPublishParams) ([]catalog.PublishResult, error) {
	if err := catalog.CheckTriggersDistinct(ps); err != nil {
		return nil, err
	}
	out := make([]catalog.PublishResult, len(ps))
	ids, mutations := make([]string, len(ps)), make([]string, len(ps))
	var now int64
	for i, p := range ps {
		rev := p.Revision
		if rev.Revision < 1 || !digest.Valid(rev.ContentDigest) {
			return nil, itemErr(i, qlerror.New(qlerror.Invalid, "trigger %s: revision %d with digest %q is not publishable", rev.TriggerID, rev.Revision, rev.ContentDigest))
		}
		if err := rev.VerifyDigest(); err != nil {
			return nil, itemErr(i, qlerror.Wrap(qlerror.Invalid, err, "trigger %s", rev.TriggerID))
		}
		ids[i], mutations[i] = rev.TriggerID, rev.MutationID
		var err error
		if now, err = t.publishTime(ctx, rev.ProjectID); err != nil {
			return nil, itemErr(i, err)
		}
	}
	done, err := replays(ctx, t.tx, sqlTriggerReplays, ids, mutations)
	if err != nil {
		return nil, err
	}
	pins, err := t.pinnedTasks(ctx, ps)
	if err != nil {
		return nil, err
	}
	heads, err := t.triggerHeads(ctx, ids)
	if err != nil {
		return nil, err
	}
	var w triggerWrites
	for i, p := range ps {
		rev := p.Revision
		if s, ok := done[rev.TriggerID]; ok {
			if out[i], err = catalog.CheckReplay(s, "trigger", rev.TriggerID, rev.Spec.Name, rev.MutationID, rev.Revision, rev.ContentDigest); err != nil {
				return nil, itemErr(i, err)
			}
			continue
		}
		v, found := pins[pin{rev.TaskID, rev.TaskRevision}]
		if err := catalog.CheckPin(rev, v, found); err != nil {
			return nil, itemErr(i, err)
		}
		if err := w.add(rev, heads); err != nil {
			return nil, itemErr(i, err)
		}
		if p.Audit != nil {
			w.audits = append(w.audits, audited{rev.TriggerID, p.Audit})
		}
		out[i] = catalog.PublishResult{Revision: rev.Revision, CreatedAtMs: now}
	}
	return out, t.writeTriggers(ctx, &w, now)
}

// pin is a task revision as a trigger pins it.
type pin struct {
	taskID   string
	revision int64
}

// pinnedTasks reads every task revision the batch pins, each once.
func (t *adminTx) pinnedTasks(ctx context.Context, ps []catalog.TriggerPublishParams) (map[pin]catalog.PinnedTask, error) {
	var tasks []string
	var revisions []int64
	want := map[pin]bool{}
	for _, p := range ps {
		k := pin{p.Revision.TaskID, p.Revision.TaskRevision}
		if !want[k] {
			want[k] = true
			tasks, revisions = append(tasks, k.taskID), append(revisions, k.revision)
		}
	}
	rows, err := t.tx.Query(ctx, sqlPinnedTaskRevisions, tasks, revisions)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[pin]catalog.PinnedTask, len(tasks))
	for rows.Next() {
		var k pin
		var v catalog.PinnedTask
		if err := rows.Scan(&k.taskID, &k.revision, &v.ProjectID, &v.Digest, &v.Enabled); err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, rows.Err()
}

func (t *adminTx) triggerHeads(ctx context.Context, ids []string) (map[string]catalog.Head, error) {
	rows, err := t.tx.Query(ctx, sqlTriggerHeadsLock, ids)
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

// add fences one revision on its head and queues its writes.
func (w *triggerWrites) add(rev trigger.Revision, heads map[string]catalog.Head) error {
	h := heads[rev.TriggerID]
	if err := catalog.CheckTriggerHead(rev, h); err != nil {
		return err
	}
	if !h.Exists {
		w.newIDs, w.newProjects, w.newTasks, w.newNames = append(w.newIDs, rev.TriggerID), append(w.newProjects, rev.ProjectID), append(w.newTasks, rev.TaskID), append(w.newNames, rev.Spec.Name)
	} else {
		w.advIDs, w.advNames, w.advRevisions = append(w.advIDs, rev.TriggerID), append(w.advNames, rev.Spec.Name), append(w.advRevisions, rev.Revision)
	}
	c := rev.Spec.Cron
	w.ids, w.projects, w.tasks, w.taskDigests = append(w.ids, rev.TriggerID), append(w.projects, rev.ProjectID), append(w.tasks, rev.TaskID), append(w.taskDigests, rev.TaskContentDigest)
	w.names, w.crons, w.zones, w.policies = append(w.names, rev.Spec.Name), append(w.crons, c.Expression), append(w.zones, c.Timezone), append(w.policies, string(c.MisfirePolicy))
	w.digests, w.mutations = append(w.digests, rev.ContentDigest), append(w.mutations, rev.MutationID)
	w.revisions, w.taskRevisions, w.enabled = append(w.revisions, rev.Revision), append(w.taskRevisions, rev.TaskRevision), append(w.enabled, rev.Spec.Enabled)
	jitter, start, end, window := policyValues(c)
	w.jitters, w.starts, w.ends, w.windows = append(w.jitters, jitter), append(w.starts, start), append(w.ends, end), append(w.windows, window)
	w.overlaps = append(w.overlaps, overlapValue(c))
	return nil
}

// writeTriggers writes a batch: heads, revisions, the schedule rows' reset
// and then their eligibility.
func (t *adminTx) writeTriggers(ctx context.Context, w *triggerWrites, now int64) error {
	if len(w.newIDs) > 0 {
		if _, err := t.tx.Exec(ctx, sqlTriggerHeadsInsert, w.newIDs, w.newProjects, w.newTasks, w.newNames, now); err != nil {
			return namesTaken(err, "trigger", w.newNames)
		}
	}
	if len(w.advIDs) > 0 {
		tag, err := t.tx.Exec(ctx, sqlTriggerHeadsAdvance, w.advIDs, w.advNames, w.advRevisions, now)
		if err != nil {
			return namesTaken(err, "trigger", w.advNames)
		}
		if err := advanced("trigger", len(w.advIDs), tag.RowsAffected()); err != nil {
			return err
		}
	}
	if len(w.ids) == 0 {
		return nil
	}
	args, err := triggerRevisionsInsertParams.args(pgx.StrictNamedArgs{
		"trigger_ids": w.ids, "revisions": w.revisions, "project_ids": w.projects, "task_ids": w.tasks,
		"task_revisions": w.taskRevisions, "task_content_digests": w.taskDigests, "names": w.names, "enabled": w.enabled,
		"cron_expressions": w.crons, "cron_timezones": w.zones, "misfire_policies": w.policies,
		"content_digests": w.digests, "mutation_ids": w.mutations, "created_at_ms": now,
		"jitter_ms": w.jitters, "start_at_ms": w.starts, "end_at_ms": w.ends, "catch_up_window_ms": w.windows,
		"overlap_policies": w.overlaps,
	})
	if err != nil {
		return err
	}
	if _, err := t.tx.Exec(ctx, sqlTriggerRevisionsInsert, args...); err != nil {
		return err
	}
	if len(w.advIDs) > 0 {
		if err := t.recordSuperseded(ctx, w.advIDs, now); err != nil {
			return err
		}
	}
	if _, err := t.tx.Exec(ctx, sqlSchedulesUpsert, w.ids, w.projects, w.revisions, now); err != nil {
		return err
	}
	if len(w.newIDs) > 0 {
		if err := t.auditPausedAtPublish(ctx, w.newIDs); err != nil {
			return err
		}
	}
	if err = refreshEligibility(ctx, t.tx, sqlEligibilityOfTriggers, w.ids); err != nil {
		return err
	}
	for _, a := range w.audits {
		if _, err := t.tx.Exec(ctx, sqlScheduleAuditInsert, ids.New(), a.triggerID, a.audit.Action, a.audit.Actor, nil, nil); err != nil {
			return err
		}
	}
	return nil
}

// auditPausedAtPublish writes the audit record of each pause a new
// trigger's schedule row started with, its project being paused: a pause
// like any other (its start is its record's time), its actor saying whose
// pause it is and that the publish applied it.
func (t *adminTx) auditPausedAtPublish(ctx context.Context, newIDs []string) error {
	type pausedRow struct {
		id    string
		note  *string
		actor string
		at    int64
	}
	rows, err := t.tx.Query(ctx, sqlSchedulesPublishedPaused, newIDs)
	if err != nil {
		return err
	}
	paused, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (pausedRow, error) {
		var p pausedRow
		return p, r.Scan(&p.id, &p.note, &p.actor, &p.at)
	})
	if err != nil {
		return err
	}
	for _, p := range paused {
		if _, err := t.tx.Exec(ctx, sqlScheduleAuditInsert, ids.New(), p.id, "pause", schedule.PausedAtPublishActor(p.actor), p.note, p.at); err != nil {
			return err
		}
	}
	return nil
}

// recordSuperseded writes to the occurrence ledger what the publishes of
// triggerIDs owe the revisions they replace (schedule.PassedAtPublish),
// before SchedulesUpsert moves the rows' cursors past them.
func (t *adminTx) recordSuperseded(ctx context.Context, triggerIDs []string, now int64) error {
	rows, err := t.tx.Query(ctx, sqlSupersededSchedules, triggerIDs)
	if err != nil {
		return err
	}
	var l publishLedger
	for rows.Next() {
		var id, policy string
		var s schedule.Superseded
		var pol policyCols
		if err := rows.Scan(&id, &s.Revision, &s.Enabled, &s.Cron.Expression, &s.Cron.Timezone, &policy, &s.CreatedAtMs,
			&pol.jitter, &pol.start, &pol.end, &pol.window, &pol.overlap, &s.CursorMs, &s.Paused, &s.PausedAtMs, &s.ResumedAtMs); err != nil {
			rows.Close()
			return err
		}
		s.Cron.MisfirePolicy = trigger.MisfirePolicy(policy)
		pol.into(&s.Cron)
		l.add(id, s.Revision, schedule.PassedAtPublish(s, now))
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return l.insert(ctx, t.tx)
}

// publishLedger gathers the ledger entries a publishing transaction owes,
// for one SupersededLedgerInsert.
type publishLedger struct {
	triggers, reasons    []string
	revisions            []int64
	firsts, lasts, count []int64
	atLeast              []bool
}

func (l *publishLedger) add(triggerID string, revision int64, passed []schedule.Passed) {
	for _, p := range passed {
		l.triggers, l.revisions, l.reasons = append(l.triggers, triggerID), append(l.revisions, revision), append(l.reasons, string(p.Reason))
		l.firsts, l.lasts, l.count, l.atLeast = append(l.firsts, p.FirstMs), append(l.lasts, p.LastMs), append(l.count, p.Count), append(l.atLeast, p.AtLeast)
	}
}

// insert appends the gathered entries, numbered on from each trigger's
// last one, with their notifications and compaction.
func (l *publishLedger) insert(ctx context.Context, tx pgx.Tx) error {
	if len(l.triggers) == 0 {
		return nil
	}
	args, err := supersededLedgerInsertParams.args(pgx.StrictNamedArgs{
		"ledger_trigger": l.triggers, "ledger_revision": l.revisions, "ledger_reason": l.reasons,
		"ledger_first": l.firsts, "ledger_last": l.lasts, "ledger_count": l.count, "ledger_at_least": l.atLeast,
		"ledger_keep": int64(schedule.LedgerKeep),
	})
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, sqlSupersededLedgerInsert, args...)
	return err
}
