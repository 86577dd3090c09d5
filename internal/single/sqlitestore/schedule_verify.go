package sqlitestore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/qinglong/qinglong/internal/core/qlerror"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// verifyTicket re-reads the ticket's snapshot under the write lock and
// checks it with the shared schedule.VerifySnapshot, in the order every
// adapter follows.
func verifyTicket(ctx context.Context, tx *txn, tk schedule.Ticket) error {
	st, err := readStored(ctx, tx, tk.TriggerID)
	if errors.Is(err, sql.ErrNoRows) {
		return verifyStored(tk, st, false)
	}
	if err != nil {
		return err
	}
	return verifyStored(tk, st, true)
}

// verifyStored checks a ticket against what was re-read for it under the
// write lock (found false: no schedule row with its definitions).
func verifyStored(tk schedule.Ticket, st schedule.Stored, found bool) error {
	if !found {
		return refuse(schedule.ReasonScheduleMissing, qlerror.New(qlerror.Internal, "trigger %s has no schedule row with its definitions", tk.TriggerID))
	}
	if reason := schedule.VerifySnapshot(tk, st); reason != "" {
		var detail error
		if reason.Outcome() == schedule.Failed {
			detail = qlerror.New(qlerror.Internal, "trigger %s revision %d fails closed (%s): the stored definitions contradict themselves or the ticket; restore them from a backup or republish the trigger",
				tk.TriggerID, tk.TriggerRevision, reason)
		}
		return refuse(reason, detail)
	}
	return nil
}

// readStored reads, inside the write transaction, a trigger's schedule row
// and the definitions it stands on (sql.ErrNoRows: none).
func readStored(ctx context.Context, tx *txn, triggerID string) (schedule.Stored, error) {
	st, err := scanStored(tx.QueryRowContext(ctx, qScheduleCommitRead, triggerID), nil)
	st.Trigger.TriggerID = triggerID
	return st, err
}

// scanStored scans a trigger's schedule row and the definitions it stands
// on, as schedule_commit_read and schedule_page_read select them, and then
// extra columns into extra; the trigger id is left to the caller, who
// asked for it. specs, when not nil, decodes each distinct task spec and
// verifies each distinct task revision's digest once.
func scanStored(row rowScanner, specs *specCache, extra ...any) (schedule.Stored, error) {
	var (
		st          schedule.Stored
		enabled     int
		taskSpec    string
		cursor      sql.NullInt64
		paused      int
		pausedAt    sql.NullInt64
		resumedAt   sql.NullInt64
		pol         policyCols
		rev, pinned = &st.Trigger, &st.Task
	)
	err := row.Scan(append([]any{&st.ProjectStatus, &st.TriggerHeadRevision, &st.TriggerHeadTaskID,
		&rev.ProjectID, &rev.TaskID, &rev.TaskRevision, &rev.TaskContentDigest, &rev.Spec.Name, &enabled,
		&rev.Spec.Cron.Expression, &rev.Spec.Cron.Timezone, &rev.Spec.Cron.MisfirePolicy, &rev.ContentDigest, &rev.CreatedAtMs,
		&pol.jitter, &pol.start, &pol.end, &pol.window, &pol.overlap,
		&st.TaskHeadRevision, &pinned.ProjectID, &taskSpec, &pinned.ContentDigest,
		&st.RowRevision, &st.StateVersion, &cursor, &paused, &pausedAt, &resumedAt}, extra...)...)
	if err != nil {
		return st, err
	}
	rev.Revision, rev.Spec.Enabled = st.RowRevision, enabled == 1
	pol.into(&rev.Spec.Cron)
	// The single-node schema stores cron triggers only.
	st.TriggerKind = trigger.SpecKind
	pinned.TaskID, pinned.Revision = rev.TaskID, rev.TaskRevision
	pinned.Spec = specs.decode(taskSpec)
	st.TaskDigestVerified = specs.digestMatches(*pinned, taskSpec)
	st.NextFireAtMs = ptr(cursor)
	st.Pause = schedule.PauseSpanOf(paused == 1, ptr(pausedAt), ptr(resumedAt))
	return st, nil
}

// verifiedExecution loads the pinned local_process plan and verifies its
// identity and digest; a missing or corrupt plan is never repaired.
func verifiedExecution(ctx context.Context, tx *txn, tk schedule.Ticket) (task.Execution, error) {
	var e task.Execution
	var cmdJSON string
	err := tx.QueryRowContext(ctx, qExecutionByTaskRevision, tk.TaskID, tk.TaskRevision).
		Scan(&e.ID, &e.ProjectID, &e.TaskID, &e.TaskRevision, &e.TaskContentDigest, &e.Executor, &cmdJSON, &e.Digest)
	if errors.Is(err, sql.ErrNoRows) {
		return e, refuse(schedule.ReasonExecutionMissing, qlerror.New(qlerror.Internal, "task %s revision %d has no execution revision; republish the task", tk.TaskID, tk.TaskRevision))
	}
	if err != nil {
		return e, err
	}
	if e.Command, err = decodeCommandJSON(cmdJSON); err != nil {
		return e, refuse(schedule.ReasonExecutionCorrupt, qlerror.Wrap(qlerror.Internal, err, "execution revision %s does not decode", e.ID))
	}
	if err := e.Verify(tk.TaskRevision, tk.TaskContentDigest, task.LocalProcess); err != nil {
		return e, refuse(schedule.ReasonExecutionCorrupt, err)
	}
	if e.ProjectID != tk.ProjectID {
		return e, refuse(schedule.ReasonExecutionCorrupt, qlerror.New(qlerror.Internal, "execution revision %s belongs to project %s", e.ID, e.ProjectID))
	}
	return e, nil
}

// specCache holds what a page derived from its task revisions' stored
// text: the rows of a page mostly pin a few task revisions, and decoding a
// spec, or computing its digest, costs more than re-reading its row.
type specCache struct {
	specs map[string]task.Spec
	// digests: whether the stored digest matched the contents it was
	// computed from, by those exact stored contents.
	digests map[digestKey]bool
}

// digestKey is everything a task revision's digest is computed from, as
// stored, and the digest stored with it.
type digestKey struct {
	projectID, taskID, spec, digest string
}

func newSpecCache() *specCache {
	return &specCache{specs: map[string]task.Spec{}, digests: map[digestKey]bool{}}
}

// decode decodes a stored spec; an undecodable one stays empty, so its
// digest check fails closed.
func (c *specCache) decode(js string) task.Spec {
	if c == nil {
		spec, _ := decodeSpec(js)
		return spec
	}
	if spec, ok := c.specs[js]; ok {
		return spec
	}
	spec, _ := decodeSpec(js)
	c.specs[js] = spec
	return spec
}

// digestMatches reports whether r's stored digest is the one its contents
// give, computed once per page for each distinct stored revision; js is
// the stored spec r.Spec was decoded from. Without a cache it answers
// false, so the caller's check computes it.
func (c *specCache) digestMatches(r task.Revision, js string) bool {
	if c == nil {
		return false
	}
	k := digestKey{projectID: r.ProjectID, taskID: r.TaskID, spec: js, digest: r.ContentDigest}
	ok, seen := c.digests[k]
	if !seen {
		ok = r.VerifyDigest() == nil
		c.digests[k] = ok
	}
	return ok
}
