package sqlitestore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/qinglong/qinglong/internal/project"
	"github.com/qinglong/qinglong/internal/qlerror"
	"github.com/qinglong/qinglong/internal/schedule"
	"github.com/qinglong/qinglong/internal/task"
	"github.com/qinglong/qinglong/internal/trigger"
)

// verifyTicket re-reads the ticket's snapshot under the write lock and
// checks it item by item in the order every adapter follows
// (docs/architecture.md, "Admission"). A changed definition or schedule
// row is a race (someone else's write won); altered content, or a cursor
// moved without the version bump every writer makes, fails closed.
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
		return refuse(schedule.ReasonScheduleMissing, qlerror.New(qlerror.Internal, "trigger %s has no schedule row with its definitions", tk.TriggerID))
	}
	if err != nil {
		return err
	}
	rev.Spec.Enabled = enabled == 1
	switch {
	case status != project.Active:
		return refuse(schedule.ReasonProjectInactive, nil)
	case headRevision != tk.TriggerRevision || rowRevision != tk.TriggerRevision:
		return refuse(schedule.ReasonTriggerRevisionChanged, nil)
	case taskCurrent != rev.TaskRevision:
		return refuse(schedule.ReasonTaskRevisionChanged, nil)
	case rev.ContentDigest != tk.TriggerContentDigest || rev.CreatedAtMs != tk.TriggerCreatedAtMs || rev.Spec.Cron != tk.Cron || rev.ProjectID != tk.ProjectID:
		return refuse(schedule.ReasonTriggerSnapshotMismatch, qlerror.New(qlerror.Internal, "trigger %s revision %d no longer matches the ticket taken for it", tk.TriggerID, tk.TriggerRevision))
	case rev.TaskID != tk.TaskID || rev.TaskRevision != tk.TaskRevision || rev.TaskContentDigest != tk.TaskContentDigest:
		return refuse(schedule.ReasonTaskSnapshotMismatch, qlerror.New(qlerror.Internal, "trigger %s revision %d pins another task revision than the ticket taken for it", tk.TriggerID, tk.TriggerRevision))
	}
	if err := rev.VerifyDigest(); err != nil {
		return refuse(schedule.ReasonTriggerDigestCorrupt, err)
	}
	switch cur := ptr(rowCursor); {
	case taskCurrentDigest != rev.TaskContentDigest:
		return refuse(schedule.ReasonTaskDigestCorrupt, qlerror.New(qlerror.Internal, "task %s revision %d has digest %s, the trigger pins %s", rev.TaskID, rev.TaskRevision, taskCurrentDigest, rev.TaskContentDigest))
	case !rev.Spec.Enabled:
		return refuse(schedule.ReasonTriggerNotSchedulable, qlerror.New(qlerror.Internal, "trigger %s revision %d is disabled, yet a ticket was taken for it", tk.TriggerID, tk.TriggerRevision))
	case rowVersion != tk.StateVersion:
		return refuse(schedule.ReasonStateVersionChanged, nil)
	case (cur == nil) != (tk.NextFireAtMs == nil) || (cur != nil && *cur != *tk.NextFireAtMs):
		return refuse(schedule.ReasonCursorDrift, qlerror.New(qlerror.Internal, "trigger %s: the cursor changed without a state version bump", tk.TriggerID))
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
