// Package storetest is the conformance suite every storage adapter runs: the
// guarantees of the catalog and schedule contracts (fences, idempotency,
// atomicity, ordering) are written once here and executed against
// PostgreSQL and SQLite alike.
package storetest

import (
	"context"
	"github.com/qinglong/qinglong/internal/core/account"
	"testing"
	"time"

	"github.com/qinglong/qinglong/internal/core/apitoken"
	"github.com/qinglong/qinglong/internal/core/audit"
	"github.com/qinglong/qinglong/internal/core/catalog"
	"github.com/qinglong/qinglong/internal/core/deps"
	"github.com/qinglong/qinglong/internal/core/notify"
	"github.com/qinglong/qinglong/internal/core/project"
	"github.com/qinglong/qinglong/internal/core/retention"
	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/schedule"
	"github.com/qinglong/qinglong/internal/core/websession"
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
	// Definitions reads a project's definitions whole, as `ql export`
	// does (on the cluster, the runtime role: a replica's API exports).
	Definitions catalog.DefinitionsReader
	// Runs reads Runs as `runs list` and `runs show` do.
	Runs run.Reader
	// Last reads the newest Run of each of a page of triggers, as the
	// console's triggers list does.
	Last run.LastReader
	// Status lists triggers with their schedule state as `triggers list`
	// does.
	Status schedule.StatusReader
	// Count counts the triggers a listing's filters match, as the
	// console's triggers list counts its pages.
	Count schedule.TriggerCounter
	// Snapshot lists and counts triggers from one snapshot, as the
	// console's triggers list reads a page and its count.
	Snapshot schedule.TriggerSnapshotter
	// Executor the adapter admits for (remote_worker or local_process).
	Service catalog.Service
	// AnotherService opens a second handle on the same database and
	// publishes through it as Service does: another Store on the same
	// file on SQLite, another admin pool (its own connections) on
	// PostgreSQL, as a second server or `ql apply` on the database would.
	AnotherService func(t *testing.T) catalog.Service
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
	// Adopter starts schedules at a handed-over position as `ql apply
	// --adopt-state` does (on the cluster, the admin role).
	Adopter schedule.Adopter
	// ProjectPauser pauses and resumes projects as `ql projects pause`
	// does.
	ProjectPauser schedule.ProjectPauser
	// ProjectPauses reads a project's pause state as `ql projects show`
	// does.
	ProjectPauses schedule.ProjectPauseReader
	// Detail reads a trigger with its ledger as `ql triggers show` does.
	Detail schedule.DetailReader
	// Monitor reads the backlog and the unfinished Runs as /metrics does.
	Monitor schedule.Monitor
	// DatabaseSize reads what the database takes on disk as /metrics does.
	DatabaseSize func(ctx context.Context) (int64, error)
	// RunLogsSize reads what the run logs take on disk as /metrics does.
	RunLogsSize func(ctx context.Context) (int64, error)
	// Activity reads per-trigger monitoring as /metrics does with
	// --metrics-per-trigger.
	Activity schedule.TriggerActivityReader
	// Audits lists a trigger's pause audit records, oldest first, each as
	// "action actor note".
	Audits func(ctx context.Context, triggerID string) ([]string, error)
	// Manual admits Runs on request, as `ql triggers run` and `ql triggers
	// backfill` do.
	Manual schedule.Manual
	// Cancel cancels a Run as `ql runs cancel` does, recording actor;
	// finished reports that the call finished the Run (run.Finishes).
	Cancel func(ctx context.Context, runID, actor string) (run.Run, run.CancelEffect, error)
	// Tokens creates, lists and revokes API tokens as `ql tokens` does
	// (on the cluster, the admin role); Auth authenticates them as a
	// server does (on the cluster, the runtime role).
	Tokens apitoken.Manager
	Auth   apitoken.Authenticator
	// Users creates, lists, disables and deletes console accounts as `ql
	// users` does (on the cluster, the admin role); UserAuth signs them in
	// as a server does (on the cluster, the runtime role).
	Users    account.Manager
	UserAuth account.Authenticator
	// Sessions keeps the console's sessions as a server does (on the
	// cluster, the runtime role).
	Sessions websession.Store
	// DependencyKeys keeps the Idempotency-Keys of dependencies changes
	// as a server's API does (on the cluster, the runtime role).
	DependencyKeys deps.Keys
	// Audit lists the audit trail as `ql audit list` does (on the
	// cluster, the runtime role).
	Audit audit.Reader
	// Record appends a record in a transaction of its own, as a server
	// records a channel's test (on the cluster, the runtime role).
	Record audit.Appender
	// Outbox is the adapter's notification outbox.
	Outbox notify.Outbox
	// Finish ends the latest attempt of a queued Run with end
	// (succeeded, failed, timed_out or lost) through the adapter's own
	// finishing path: the executor's result or recovery on SQLite, a
	// worker's completion or the lease sweep on PostgreSQL. It returns the
	// state the adapter reported the call finished the Run in, "" when it
	// reported none.
	Finish func(ctx context.Context, runID string, end run.AttemptState) (finished run.State, err error)
	// FinishKilled is Finish failed, the command killed by signal (not
	// by QingLong: the OOM killer, a kill by someone else), as the
	// executor records it on SQLite and a worker reports it on
	// PostgreSQL.
	FinishKilled func(ctx context.Context, runID string, signal int) (finished run.State, err error)
	// FinishAgain applies the last Finish of runID once more, exactly as
	// it was sent: the worker's completion retried (its reply was lost),
	// or the sweep run again, on PostgreSQL; the executor's result
	// recorded again, or the recovery run again, on SQLite. It returns
	// what Finish does; an adapter may refuse the repeat (an attempt
	// already ended) rather than answer it.
	FinishAgain func(ctx context.Context, runID string) (finished run.State, err error)
	// DispatchOrder is the Runs the adapter's dispatcher starts next, in
	// the order it starts them, at most n: the single-node executor's
	// queue as a round of n reads it; on PostgreSQL, a new worker's pulls
	// of one grant each, until n or none is left (each grant leases its
	// Run, so the queue moves on).
	DispatchOrder func(t *testing.T, n int) []string
	// Told is what the command of the attempt Finish last started for
	// runID was told about itself (its QL_* variables): AttemptStart's
	// identity on SQLite, the worker's grant on PostgreSQL.
	Told func(runID string) run.Identity
	// RequeueRetries queues the Runs waiting to retry whose backoff has
	// passed, through the adapter's own path: the lease sweep on
	// PostgreSQL, the dispatcher's requeue on SQLite. It returns how many
	// it queued.
	RequeueRetries func(ctx context.Context) (requeued int, err error)
	// FinishWithOutput is Finish after the attempt wrote output to its
	// log: by the executor's log file on SQLite, a worker's log requests
	// on PostgreSQL.
	FinishWithOutput func(ctx context.Context, runID string, end run.AttemptState, output []byte) (finished run.State, err error)
	// FinishAfter is Finish with atStart called once the attempt runs and
	// before its end is reported: what happens meanwhile (a cancel) races
	// the command's own end.
	FinishAfter func(ctx context.Context, runID string, end run.AttemptState, atStart func(context.Context) error) (finished run.State, err error)
	// PassDeadline moves the deadline of the running latest attempt of
	// runID to just before the adapter's now, as if its timeout had just
	// passed: its start backdated by its timeout on SQLite, its
	// deadline_at_ms set on PostgreSQL. Nothing else changes: the command
	// is not stopped until its end is reported.
	PassDeadline func(ctx context.Context, runID string) error
	// Elapse lets d pass on the adapter's time authority: the injected
	// clock moves on, the database's is waited for.
	Elapse func(d time.Duration)

	// Retention is the adapter's retention store (on PostgreSQL, over the
	// maintenance role).
	Retention retention.Store
	// ProjectDeleter deletes archived projects as `ql projects delete`
	// does (on PostgreSQL, the maintenance role). ProjectRows counts the
	// rows of every table that hold something of the project, by table.
	ProjectDeleter project.Deleter
	ProjectRows    func(ctx context.Context, projectID string) (map[string]int64, error)
	// BlockLogRemoval makes the log file of an attempt impossible to
	// remove until the function it returns is called (nil where logs are
	// rows, not files).
	BlockLogRemoval func(t *testing.T, attemptID string) (unblock func())
	// SeedFinished copies the admitted Run template n times as finished
	// (succeeded) Runs that finished at finishedAtMs, each with one ended
	// attempt, three events and, when logBytes > 0, a stored log of that
	// many bytes. It returns the new Runs' ids.
	SeedFinished func(ctx context.Context, templateRunID string, n int, finishedAtMs int64, logBytes int) ([]string, error)
	// SeedLost copies the admitted Run template n times as Runs found lost
	// at lostAtMs, each with one attempt ended lost, three events and,
	// when logBytes > 0, a stored log of that many bytes. It returns the
	// new Runs' ids.
	SeedLost func(ctx context.Context, templateRunID string, n int, lostAtMs int64, logBytes int) ([]string, error)
	// Backdate moves the times of a Run and its attempts (admission,
	// start, end) back by d, as if all of it had happened that long ago.
	Backdate func(ctx context.Context, runID string, d time.Duration) error
	// BackdateNotification moves the times of an outbox row (creation,
	// last update, due, delivery) back by d, as if it had been written
	// that long ago.
	BackdateNotification func(ctx context.Context, id string, d time.Duration) error
	// SeedNotifications copies the pending outbox row template n times
	// with fresh ids and subjects, copy k (1…n) due k ms before it: a
	// backlog of the template's channel due ahead of every row due with
	// or after the template.
	SeedNotifications func(ctx context.Context, templateID string, n int) error
	// HasLog reports whether an attempt's log is still stored.
	HasLog func(ctx context.Context, attemptID string) (bool, error)

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
	// SetLastScheduled writes a trigger's last admitted occurrence (nil:
	// none) without bumping its state version, as a schedule restored from
	// a backup older than its Runs would hold it.
	SetLastScheduled func(ctx context.Context, triggerID string, lastScheduledMs *int64) error
	// SetWrittenAt writes the time a trigger's schedule row was last
	// written (its updated_at_ms) without bumping its state version, as a
	// write made while the clock read writtenAtMs would have left it.
	SetWrittenAt func(ctx context.Context, triggerID string, writtenAtMs int64) error
	// FailAuditWrites makes every later write to the audit trail fail,
	// as a full disk or a lost privilege would.
	FailAuditWrites func(ctx context.Context) error
	// AgeTokens moves the creation and expiry of every token named name
	// back by byMs, as tokens created that long ago would hold them.
	AgeTokens func(ctx context.Context, name string, byMs int64) error
	// AgeSession moves the sign-in, last use and expiry of the console
	// session of digest back by byMs (forward when negative), as if the
	// store's clock had moved on that much since.
	AgeSession func(ctx context.Context, digest []byte, byMs int64) error
	// RewriteTrigger overwrites the name, enabled flag and content digest of
	// the trigger's current revision in place.
	RewriteTrigger func(ctx context.Context, triggerID, name string, enabled bool, digest string) error
	// SetZone overwrites the zone and content digest of the trigger's
	// current revision in place, as a server whose zone database has a
	// zone this one lacks would have published it.
	SetZone func(ctx context.Context, triggerID, zone, digest string) error
	// SetMisfirePolicy overwrites the misfire policy and content digest
	// of the trigger's current revision in place, past the schema's check
	// of the policies this build knows, as a newer build that knows
	// another policy would have published it.
	SetMisfirePolicy func(ctx context.Context, triggerID, policy, digest string) error
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
	// ReopenAttempts puts every attempt of a Run back to running, without
	// an end (on PostgreSQL, under a lease that runs for an hour), leaving
	// the Run's state as it is.
	ReopenAttempts func(ctx context.Context, runID string) error
	// FailNotificationInserts makes every later insert into the
	// notification outbox fail.
	FailNotificationInserts func(ctx context.Context) error
}

// Factory builds a fresh Fixture for a test.
type Factory func(t *testing.T) Fixture
