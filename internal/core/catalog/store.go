// Package catalog publishes definitions — projects, task revisions (with
// their execution revisions) and trigger revisions (with their schedule
// rows) — through a storage contract both profiles' adapters implement.
//
// Rules live here: validation, digests, execution plans, and the rules of
// the fences (expected revision, mutation-id replay, pinned task revision;
// fences.go), so both profiles reject the same items with the same words.
// The adapters' transactions read what a fence needs and write what it
// allows, because only a transaction can make a fence hold.
package catalog

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// Change says what a publish did.
type Change string

// The changes a publish reports.
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
	// Audit, when set, is written to the trigger's schedule audit trail in
	// the publish's transaction (`ql triggers enable|disable`).
	Audit *Audit
}

// Audit is who asked for a change of a trigger, and which.
type Audit struct {
	// Action is "enable" or "disable".
	Action string
	// Actor is the operating-system user, or the API token and address.
	Actor string
}

// PublishResult reports a publish. Replayed means the mutation id had
// already been applied with identical content and nothing new was written.
type PublishResult struct {
	Revision    int64
	CreatedAtMs int64
	Replayed    bool
}

// ItemError is the failure of one item of a batch publish: Index is its
// position in the slice given to TasksPublish or TriggersPublish.
type ItemError struct {
	Index int
	Err   error
}

func (e *ItemError) Error() string { return e.Err.Error() }
func (e *ItemError) Unwrap() error { return e.Err }

// Auditor is a publishing transaction that records, in itself, who
// published what: an apply over the HTTP API names its token and address.
// A store whose publishing role may not write that record does not
// implement it, and such an apply is refused.
type Auditor interface {
	// AuditPublish records actor and a summary of what changed in the
	// project, at the transaction's publish time.
	AuditPublish(ctx context.Context, actor, projectName, summary string) error
}

// Reader reads current definitions by name. A dry run plans through it.
type Reader interface {
	// ProjectByName returns the project or a NotFound error.
	ProjectByName(ctx context.Context, name string) (project.Project, error)
	// TasksByName returns the current revisions of those of the named
	// tasks that exist, keyed by name, their digests verified.
	TasksByName(ctx context.Context, projectID string, names []string) (map[string]task.Revision, error)
	// TriggersByName is TasksByName for triggers.
	TriggersByName(ctx context.Context, projectID string, names []string) (map[string]trigger.Revision, error)
	// TriggerNamesOfTasks returns the names of the project's triggers
	// bound to any of the tasks, in name order.
	TriggerNamesOfTasks(ctx context.Context, projectID string, taskIDs []string) ([]string, error)
	TitleReader
}

// Tx is one publishing transaction: its reads see its own writes, every
// revision it writes carries one publish time, and nothing it writes is
// visible to anyone before it commits. Each batch method enforces, per
// item, the fences TaskPublish and TriggerPublish enforce.
type Tx interface {
	Reader
	// ProjectSave inserts the project or updates its name and status.
	ProjectSave(ctx context.Context, p project.Project) (Change, error)
	// TasksPublish appends task revisions (each with its execution
	// revision when enabled); results are in the order of ps.
	TasksPublish(ctx context.Context, ps []TaskPublishParams) ([]PublishResult, error)
	// TriggersPublish appends trigger revisions and resets their schedule
	// rows; results are in the order of ps.
	TriggersPublish(ctx context.Context, ps []TriggerPublishParams) ([]PublishResult, error)
	TitleWriter
}

// DefinitionsTx is a publishing transaction that reads a project's
// definitions whole (DefinitionsReader.ProjectDefinitions) in itself: an
// apply over an expected project revision reads the revision there, after
// what serializes publishes, so that no other publish lands between its
// check and its write. Both adapters' transactions implement it.
type DefinitionsTx interface {
	Tx
	ProjectDefinitions(ctx context.Context, name string, limit int) (Definitions, error)
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
	Reader
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
	// Publish runs fn in one transaction and commits what it wrote only if
	// fn returns nil: all or nothing. Where the database can fail a
	// transaction for serialization, fn is re-run from the start, so it
	// must derive everything it writes from what it reads through tx.
	Publish(ctx context.Context, fn func(tx Tx) error) error
}
