// Package catalog publishes definitions — projects, task revisions (with
// their execution revisions) and trigger revisions (with their schedule
// rows) — through a storage contract both profiles' adapters implement.
//
// Rules live here (validation, digests, execution plans); fences live in the
// adapters' transactions (expected revision, mutation-id replay, pinned task
// revision, schedule reset), because only a transaction can make them hold.
package catalog

import (
	"context"

	"github.com/qinglong/qinglong/internal/project"
	"github.com/qinglong/qinglong/internal/task"
	"github.com/qinglong/qinglong/internal/trigger"
)

// Change says what a publish did.
type Change string

const (
	Created   Change = "created"
	Updated   Change = "updated"
	Unchanged Change = "unchanged"
)

// TaskPublishParams is one task revision to publish. Revision.Revision is
// the expected current revision + 1 (1 = create).
type TaskPublishParams struct {
	Revision task.Revision
	// Execution is the plan for an enabled revision (nil when disabled),
	// written in the same transaction.
	Execution *task.Execution
}

// TriggerPublishParams is one trigger revision to publish.
type TriggerPublishParams struct {
	Revision trigger.Revision
}

// PublishResult reports a publish. Replayed means the mutation id had
// already been applied with identical content and nothing new was written.
type PublishResult struct {
	Revision    int64
	CreatedAtMs int64
	Replayed    bool
}

// Store is what a storage adapter implements. Every method is one
// transaction (SERIALIZABLE on PostgreSQL, BEGIN IMMEDIATE on SQLite).
//
// Errors use qlerror codes: NotFound for a missing object; Conflict when the
// expected revision is stale or a name is taken; MutationDrift when a
// mutation id is replayed with other content; FailedPrecondition for an
// archived project, an enabled trigger pinning a disabled task, a pinned
// task revision that is not the task's, or a trigger moving to another task.
type Store interface {
	// ProjectByName returns the project or a NotFound error.
	ProjectByName(ctx context.Context, name string) (project.Project, error)
	// ProjectSave inserts the project or updates its name and status.
	ProjectSave(ctx context.Context, p project.Project) (Change, error)
	// TaskByName returns the current revision of the named task.
	TaskByName(ctx context.Context, projectID, name string) (task.Revision, error)
	// TaskPublish appends a task revision. On an enabled revision the
	// execution revision is written in the same transaction.
	TaskPublish(ctx context.Context, p TaskPublishParams) (PublishResult, error)
	// TriggerByName returns the current revision of the named trigger.
	TriggerByName(ctx context.Context, projectID, name string) (trigger.Revision, error)
	// TriggerPublish appends a trigger revision and, in the same
	// transaction, upserts its schedule row: cursor and claim cleared,
	// state_version and claim_version incremented, so no claim or ticket
	// taken before can ever commit.
	TriggerPublish(ctx context.Context, p TriggerPublishParams) (PublishResult, error)
}
