// Package storetest is the conformance suite every storage adapter runs: the
// guarantees of the catalog and schedule contracts (fences, idempotency,
// atomicity, ordering) are written once here and executed against
// PostgreSQL and SQLite alike.
package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
)

// Row is the observable state of one schedule row.
type Row struct {
	TriggerRevision int64
	NextFireAtMs    *int64
	// DueAtMs is the instant the row falls due (its cursor plus the
	// cursor occurrence's jitter); nil with a cursor when the row ended.
	DueAtMs           *int64
	LastScheduledAtMs *int64
	StateVersion      int64
	ClaimOwner        *string // always nil on single-node profiles
	ClaimVersion      int64   // 0 on single-node profiles
}

// Counts are the durable facts of one occurrence or trigger.
type Counts struct {
	Runs, Attempts, Events int
}

// Fixture is one fresh, empty, migrated store for one test.
type Fixture struct {
	Catalog  catalog.Store
	Schedule schedule.Store
	// Runs reads Runs as `runs list` and `runs show` do.
	Runs run.Reader
	// Status lists triggers with their schedule state as `triggers list`
	// does.
	Status schedule.StatusReader
	// Executor the adapter admits for (remote_worker or local_process).
	Service catalog.Service
	// Row reads the schedule row of a trigger.
	Row func(ctx context.Context, triggerID string) (Row, error)
	// Counts counts runs, attempts and events of a trigger.
	Counts func(ctx context.Context, triggerID string) (Counts, error)
	// MakeDue sets a trigger's cursor to the adapter's "now" minus lateMs,
	// using the adapter's own time authority.
	MakeDue func(ctx context.Context, triggerID string, lateMs int64) error
	// MoveCursor writes a trigger's cursor and its due offset (the jitter
	// of the cursor occurrence; nil ends the row) with a version bump, as
	// a commit would.
	MoveCursor func(ctx context.Context, triggerID string, cursorMs int64, dueOffsetMs *int64) error
	// NowMs is the adapter's time authority (database clock or injected
	// clock), for assertions.
	NowMs func(ctx context.Context) (int64, error)
	// Tamper edits stored rows behind the store's back.
	Tamper Tamper
	// Pauser pauses and resumes triggers as `ql triggers pause` does.
	Pauser schedule.Pauser
	// Detail reads a trigger with its ledger as `ql triggers show` does.
	Detail schedule.DetailReader
	// Monitor reads the backlog and the unfinished Runs as /metrics does.
	Monitor schedule.Monitor
	// Audits lists a trigger's pause audit records, oldest first, each as
	// "action actor note".
	Audits func(ctx context.Context, triggerID string) ([]string, error)
	// Elapse lets d pass on the adapter's time authority: the injected
	// clock moves on, the database's is waited for.
	Elapse func(d time.Duration)

	// page routes every commit of a case through ScheduleCommitPage (as a
	// page of its own) instead of ScheduleCommit; RunSchedule sets it.
	page bool
}

// Tamper edits stored rows the way corruption, a hand edit or a restored
// backup would, bypassing every rule the store keeps (immutable revisions,
// the version bump of every cursor write), so the suite can reach the
// reasons a commit fails closed with.
type Tamper struct {
	// SetCursor writes a trigger's cursor, bumping its state version only
	// when bump is set.
	SetCursor func(ctx context.Context, triggerID string, cursorMs int64, bump bool) error
	// RewriteTrigger overwrites the name, enabled flag and content digest of
	// the trigger's current revision in place.
	RewriteTrigger func(ctx context.Context, triggerID, name string, enabled bool, digest string) error
	// CorruptTaskCommand changes the stored command arguments of a task
	// revision, leaving its digest.
	CorruptTaskCommand func(ctx context.Context, taskID string, revision int64) error
	// SetTaskDigest overwrites the stored content digest of a task revision.
	SetTaskDigest func(ctx context.Context, taskID string, revision int64, digest string) error
	// DeleteExecutions deletes every execution revision of a task.
	DeleteExecutions func(ctx context.Context, taskID string) error
	// CorruptExecutions changes the stored command arguments of every
	// execution revision of a task, leaving their digests.
	CorruptExecutions func(ctx context.Context, taskID string) error
	// DeleteSchedule deletes a trigger's schedule row.
	DeleteSchedule func(ctx context.Context, triggerID string) error
	// FailQueuedEvents makes every later insert of a run.queued event
	// fail, as a write fault in the middle of an admission would.
	FailQueuedEvents func(ctx context.Context) error
	// SeedLedger inserts n occurrence ledger entries numbered 1..n for a
	// trigger at revision 1: entry i has one occurrence at i seconds, with
	// reason "misfire" when i is odd and "collapsed" when it is even, as a
	// long history would have left them.
	SeedLedger func(ctx context.Context, triggerID string, n int) error
	// SetPauseSpan writes a trigger's last pause span (an ended pause)
	// without bumping its state version.
	SetPauseSpan func(ctx context.Context, triggerID string, fromMs, untilMs int64) error
}

// Factory builds a fresh Fixture for a test.
type Factory func(t *testing.T) Fixture
