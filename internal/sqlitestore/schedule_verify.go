package sqlitestore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/qinglong/qinglong/internal/ids"
	"github.com/qinglong/qinglong/internal/project"
	"github.com/qinglong/qinglong/internal/qlerror"
	"github.com/qinglong/qinglong/internal/schedule"
	"github.com/qinglong/qinglong/internal/task"
	"github.com/qinglong/qinglong/internal/trigger"
)

// checkDecision rejects a decision that cannot have come from the decider
// for this ticket, before any lock is taken.
func checkDecision(p schedule.CommitParams) error {
	tk, d := p.Ticket, p.Decision
	bad := func(format string, args ...any) error {
		return qlerror.New(qlerror.Internal, "trigger "+tk.TriggerID+": "+format, args...)
	}
	if tk.Lease != nil {
		return bad("a single-node store was handed a cluster lease")
	}
	if tk.NextFireAtMs != nil && d.DueMs != *tk.NextFireAtMs {
		return bad("decision is about %d but the ticket's cursor is %d", d.DueMs, *tk.NextFireAtMs)
	}
	switch d.Action {
	case schedule.Initialize:
		if d.DueMs <= tk.ObservedAtMs || d.NextFireAtMs != d.DueMs {
			return bad("initialize must store a future cursor")
		}
	case schedule.SkipLate, schedule.Admit:
		if d.DueMs > tk.ObservedAtMs || d.NextFireAtMs <= tk.ObservedAtMs {
			return bad("%s must be about a due occurrence and move the cursor past the observation time", d.Action)
		}
		if d.Action == schedule.Admit {
			if d.ScheduledForMs != d.DueMs {
				return bad("admit must schedule the due occurrence")
			}
			if ids.Validate("runId", p.RunID) != nil || ids.Validate("attemptId", p.AttemptID) != nil {
				return bad("admit needs run and attempt ids")
			}
		}
	default:
		return bad("unknown action %q", d.Action)
	}
	return nil
}

// verifyTicket re-reads the ticket's snapshot under the write lock.
func verifyTicket(ctx context.Context, tx *txn, tk schedule.Ticket) error {
	var (
		status                  project.Status
		headRevision            int64
		rev                     trigger.Revision
		enabled                 int
		taskCurrent             int64
		taskCurrentDigest       string
		rowRevision, rowVersion int64
		rowCursor               sql.NullInt64
	)
	rev.TriggerID, rev.Revision = tk.TriggerID, tk.TriggerRevision
	err := tx.QueryRowContext(ctx, qScheduleCommitRead, tk.TriggerID).Scan(&status, &headRevision,
		&rev.ProjectID, &rev.TaskID, &rev.TaskRevision, &rev.TaskContentDigest, &rev.Spec.Name, &enabled,
		&rev.Spec.Cron.Expression, &rev.Spec.Cron.Timezone, &rev.Spec.Cron.MisfirePolicy, &rev.ContentDigest, &rev.CreatedAtMs,
		&taskCurrent, &taskCurrentDigest, &rowRevision, &rowVersion, &rowCursor)
	if errors.Is(err, sql.ErrNoRows) {
		return raced("schedule_missing")
	}
	if err != nil {
		return err
	}
	rev.Spec.Enabled = enabled == 1
	switch {
	case status != project.Active:
		return raced("project_inactive")
	case headRevision != tk.TriggerRevision || rowRevision != tk.TriggerRevision:
		return raced("trigger_revision_changed")
	case rowVersion != tk.StateVersion:
		return raced("state_version_changed")
	case !rev.Spec.Enabled:
		return raced("trigger_disabled")
	case taskCurrent != tk.TaskRevision:
		return raced("task_revision_changed")
	}
	if err := rev.VerifyDigest(); err != nil {
		return failed("trigger_digest_mismatch", err)
	}
	if rev.ContentDigest != tk.TriggerContentDigest || rev.CreatedAtMs != tk.TriggerCreatedAtMs || rev.Spec.Cron != tk.Cron ||
		rev.ProjectID != tk.ProjectID || rev.TaskID != tk.TaskID || rev.TaskRevision != tk.TaskRevision || rev.TaskContentDigest != tk.TaskContentDigest {
		return failed("snapshot_mismatch", qlerror.New(qlerror.Internal, "trigger %s revision %d no longer matches the ticket taken for it at the same state version", tk.TriggerID, tk.TriggerRevision))
	}
	if taskCurrentDigest != tk.TaskContentDigest {
		return failed("task_digest_mismatch", qlerror.New(qlerror.Internal, "task %s revision %d has digest %s, the trigger pins %s", tk.TaskID, tk.TaskRevision, taskCurrentDigest, tk.TaskContentDigest))
	}
	if cur := ptr(rowCursor); (cur == nil) != (tk.NextFireAtMs == nil) || (cur != nil && *cur != *tk.NextFireAtMs) {
		return failed("cursor_drift", qlerror.New(qlerror.Internal, "trigger %s: the cursor changed without a state version bump", tk.TriggerID))
	}
	return nil
}

// verifiedExecution loads the pinned local_process plan and verifies its
// identity and digest; a missing or corrupt plan is never repaired.
func verifiedExecution(ctx context.Context, tx *txn, tk schedule.Ticket) (task.Execution, error) {
	var e task.Execution
	var cmdJSON string
	err := tx.QueryRowContext(ctx, qExecutionByTaskRevision, tk.TaskID, tk.TaskRevision).
		Scan(&e.ID, &e.ProjectID, &e.TaskID, &e.TaskRevision, &e.TaskContentDigest, &e.Executor, &cmdJSON, &e.Digest)
	if errors.Is(err, sql.ErrNoRows) {
		return e, failed("execution_revision_missing", qlerror.New(qlerror.Internal, "task %s revision %d has no execution revision; republish the task", tk.TaskID, tk.TaskRevision))
	}
	if err != nil {
		return e, err
	}
	if e.Command, err = decodeCommandJSON(cmdJSON); err != nil {
		return e, failed("execution_revision_corrupt", qlerror.Wrap(qlerror.Internal, err, "execution revision %s does not decode", e.ID))
	}
	if err := e.Verify(tk.TaskRevision, tk.TaskContentDigest, task.LocalProcess); err != nil {
		return e, failed("execution_revision_corrupt", err)
	}
	if e.ProjectID != tk.ProjectID {
		return e, failed("execution_revision_corrupt", qlerror.New(qlerror.Internal, "execution revision %s belongs to project %s", e.ID, e.ProjectID))
	}
	return e, nil
}
