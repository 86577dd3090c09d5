package schedule

import (
	"context"

	"github.com/qinglong/qinglong/internal/core/run"
	"github.com/qinglong/qinglong/internal/core/task"
	"github.com/qinglong/qinglong/internal/core/trigger"
)

// Outcome of committing one decision.
type Outcome string

// The outcomes of a commit.
const (
	Admitted    Outcome = "admitted"
	Initialized Outcome = "initialized"
	Skipped     Outcome = "skipped"
	// Raced means the fence no longer holds (another owner, a republished
	// trigger, an expired claim, a CAS miss); nothing was written.
	Raced Outcome = "raced"
	// Unavailable means the database went away; for a lost COMMIT reply the
	// outcome is unknown and is resolved from durable facts, never by a
	// blind retry.
	Unavailable Outcome = "unavailable"
	// Failed means verification failed closed or a write failed; nothing was
	// written. Reason says why.
	Failed Outcome = "failed"
)

// Outcomes lists every outcome in report order.
var Outcomes = []Outcome{Admitted, Initialized, Skipped, Raced, Unavailable, Failed}

// Snapshot is the definition state a ticket was taken against. The commit
// re-verifies every field of it before writing.
type Snapshot struct {
	ProjectID            string
	TriggerID            string
	TriggerRevision      int64
	TriggerContentDigest string
	TriggerCreatedAtMs   int64
	Cron                 trigger.Cron
	TaskID               string
	TaskRevision         int64
	TaskContentDigest    string
	NextFireAtMs         *int64
	LastScheduledAtMs    *int64
	// StateVersion is the row version after the take (the cluster claim
	// bumps it; the local CAS compares it).
	StateVersion int64
	// Pause is the row's last ended pause, or nil (pause.go).
	Pause *PauseSpan
}

// Lease is the cluster's four-part claim fence. Nil for single-node
// profiles, whose fence is the state_version CAS alone.
type Lease struct {
	Owner        string
	Token        string
	ClaimVersion int64
	ExpiresAtMs  int64
	AcquiredAtMs int64
}

// Ticket is one schedule row taken for a decision.
type Ticket struct {
	Snapshot
	Lease *Lease
	// ObservedAtMs is the only "now" a decision about this ticket may use:
	// the claim's database acquisition time in the cluster (for a row
	// claimed ahead of its due time, that due time: decidedAt), the
	// injected clock's reading at page time for single-node profiles.
	ObservedAtMs int64
}

// TakeParams bound one take. There is deliberately no time field: the
// cluster store samples PostgreSQL's clock itself.
type TakeParams struct {
	Limit int
}

// CommitParams is a decision to commit for a ticket. RunID and AttemptID are
// set only for Admit.
type CommitParams struct {
	Ticket   Ticket
	Decision Decision
	// GraceMs is the misfire grace the decision used, so the commit can
	// recompute the whole decision from its own facts and refuse one that
	// was not derived from exactly the ticket's observation time.
	GraceMs   int64
	RunID     string
	AttemptID string
}

// CommitResult reports one commit.
type CommitResult struct {
	Outcome Outcome
	// Reason says why, for raced, failed and unavailable; its outcome
	// (Reason.Outcome) is always Outcome.
	Reason Reason
	RunID  string
	// AdmittedAtMs is, for Admitted, the store's time the admission wrote
	// as its Run's creation time (database time in the cluster): the
	// admission lag (Summary.AdmissionLagMs) is measured to it. Zero for
	// every other outcome.
	AdmittedAtMs int64
	// Err is the detail ScheduleCommit returns beside this result: why it
	// failed, or for a known outcome whose connection was lost after COMMIT,
	// that loss (wrapping ErrUnavailable). Set only by ScheduleCommitPage.
	Err error
	// Finished counts the Runs the committed decision finished: the
	// trigger's unfinished Runs that its overlap policy cancel_previous
	// cancelled at once (run.Finishes). Zero when nothing was committed.
	Finished run.FinishCounts
	// Passed are the occurrences the committed decision passed over,
	// exactly the entries the commit wrote to the occurrence ledger. They
	// are the decision's own Passed unless the store changed the decision
	// under its lock: an admission the trigger's overlap policy passed
	// over (Decision.OverlapPassed) adds its overlap entry, which only the
	// store knows of. Nil when nothing was committed.
	Passed []Passed
}

// Store is the contract every scheduling profile's storage adapter keeps.
//
// ScheduleTake returns up to Limit due or uninitialised rows ordered by
// next_fire_at NULLS FIRST, project id, trigger id, passing over the rows
// it was told to recheck later (Rechecker) until then. ScheduleCommit verifies
// the ticket's snapshot and fence and writes the decision atomically: for
// Admit the queued Run, its first Attempt, events run.created and run.queued
// and the cursor advance, all or nothing.
//
// ScheduleCommitPage commits a page of decisions at once. Its results are
// index-aligned with ps, each exactly what ScheduleCommit would give that
// decision alone (with ScheduleCommit's error in Err); one decision's
// failure never changes another's outcome. It returns an error only when
// no decision could be judged.
type Store interface {
	ScheduleTake(ctx context.Context, p TakeParams) ([]Ticket, error)
	ScheduleCommit(ctx context.Context, p CommitParams) (CommitResult, error)
	ScheduleCommitPage(ctx context.Context, ps []CommitParams) ([]CommitResult, error)
	// Executor is the executor admitted Attempts are created for.
	Executor() task.Executor
}
