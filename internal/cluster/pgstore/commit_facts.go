package pgstore

import (
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// commitFacts is what sqlCommitLock read under the row lock: the database
// time and every stored fact a ticket is verified against.
type commitFacts struct {
	NowMs int64
	TID   pgtype.TID

	ProjectID         string
	Revision          int64
	NextFireAtMs      *int64
	LastScheduledAtMs *int64
	StateVersion      int64
	ClaimOwner        *string
	ClaimToken        *string
	ClaimVersion      int64
	ClaimExpiresAtMs  *int64
	UpdatedAtMs       int64
	Paused            bool
	PausedAtMs        *int64
	ResumedAtMs       *int64

	ProjectStatus string

	HeadRevision int64
	HeadTaskID   string
	Trigger      trigger.Revision
	TriggerKind  string

	TaskHeadRevision int64
	Task             task.Revision

	// Execution is nil when the pinned remote_worker plan is missing.
	Execution *task.Execution

	// Unfinished are the trigger's unfinished Runs, read only when its
	// revision has an overlap policy.
	Unfinished []string

	// taskVerified and executionVerified: the page's lock already
	// verified the digests of Task and of Execution from the same stored
	// text (pageDefs); false leaves the check to the verification.
	taskVerified, executionVerified bool
}

// stored is what the shared snapshot verification compares the ticket with.
func (f commitFacts) stored() schedule.Stored {
	return schedule.Stored{
		ProjectStatus:       project.Status(f.ProjectStatus),
		TriggerHeadRevision: f.HeadRevision,
		TriggerHeadTaskID:   f.HeadTaskID,
		Trigger:             f.Trigger,
		TriggerKind:         f.TriggerKind,
		TaskHeadRevision:    f.TaskHeadRevision,
		Task:                f.Task,
		RowRevision:         f.Revision,
		StateVersion:        f.StateVersion,
		NextFireAtMs:        f.NextFireAtMs,
		Pause:               schedule.PauseSpanOf(f.Paused, f.PausedAtMs, f.ResumedAtMs),
		TaskDigestVerified:  f.taskVerified,
	}
}

// scanCommitFacts reads one row of sqlCommitLock.
func scanCommitFacts(row pgx.Row, triggerID string) (commitFacts, error) {
	var f commitFacts
	if err := scanFacts(row, &f, triggerID, nil, &f.Unfinished); err != nil {
		return commitFacts{}, err
	}
	return f, nil
}

// scanFacts reads one row of a lock statement into f: the facts every lock
// statement reads, then the columns that follow them into extra. defs, when
// not nil, decodes and verifies each distinct stored definition of a page
// once.
func scanFacts(row pgx.Row, f *commitFacts, triggerID string, defs *pageDefs, extra ...any) error {
	var policy string
	var pol policyCols
	var labels, command []byte
	var erID, erProject, erTaskDigest, erExecutor, erDigest *string
	var erCommand []byte
	dest := []any{&f.NowMs, &f.TID,
		&f.ProjectID, &f.Revision, &f.NextFireAtMs, &f.LastScheduledAtMs, &f.StateVersion,
		&f.ClaimOwner, &f.ClaimToken, &f.ClaimVersion, &f.ClaimExpiresAtMs, &f.UpdatedAtMs,
		&f.Paused, &f.PausedAtMs, &f.ResumedAtMs,
		&f.ProjectStatus,
		&f.HeadRevision, &f.HeadTaskID,
		&f.Trigger.TaskID, &f.Trigger.TaskRevision, &f.Trigger.TaskContentDigest, &f.Trigger.Spec.Name, &f.Trigger.Spec.Enabled, &f.TriggerKind,
		&f.Trigger.Spec.Cron.Expression, &f.Trigger.Spec.Cron.Timezone, &policy, &f.Trigger.ContentDigest, &f.Trigger.CreatedAtMs,
		&pol.jitter, &pol.start, &pol.end, &pol.window, &pol.overlap,
		&f.TaskHeadRevision,
		&f.Task.ProjectID, &f.Task.Spec.Name, &f.Task.Spec.Enabled, &labels, &command, &f.Task.ContentDigest,
		&erID, &erProject, &erTaskDigest, &erExecutor, &erCommand, &erDigest}
	if err := row.Scan(append(dest, extra...)...); err != nil {
		return err
	}
	f.Trigger.TriggerID, f.Trigger.ProjectID, f.Trigger.Revision = triggerID, f.ProjectID, f.Revision
	f.Trigger.Spec.Cron.MisfirePolicy = trigger.MisfirePolicy(policy)
	pol.into(&f.Trigger.Spec.Cron)
	f.Task.TaskID, f.Task.Revision = f.Trigger.TaskID, f.Trigger.TaskRevision
	// Undecodable stored content leaves the spec empty, so the digest check
	// that follows fails closed.
	f.Task.Spec.Labels = defs.labelsOf(labels)
	f.Task.Spec.Command = defs.command(command)
	f.taskVerified = defs.taskVerified(f.Task, labels, command)
	if erID != nil {
		e := &task.Execution{ID: *erID, ProjectID: *erProject, TaskID: f.Task.TaskID, TaskRevision: f.Task.Revision,
			TaskContentDigest: *erTaskDigest, Executor: task.Executor(*erExecutor), Digest: *erDigest}
		e.Command = defs.command(erCommand)
		f.Execution = e
		f.executionVerified = defs.executionVerified(*e, erCommand, f.Task.Revision, f.Task.ContentDigest)
	}
	return nil
}
