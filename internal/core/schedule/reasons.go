package schedule

import "slices"

// Reason is the stable code saying why a commit was raced, failed or
// unavailable. The set is closed: every adapter returns only these, each
// always with the outcome Outcome gives it, so the same situation reads
// the same on every profile. Logs and tests match on the code, never on
// an error's text.
type Reason string

// Raced: someone else's write won. Nothing was written; the next round
// re-reads the row and decides again.
const (
	// ReasonProjectInactive: the project was archived after the take.
	ReasonProjectInactive Reason = "project_inactive"
	// ReasonTriggerRevisionChanged: the trigger was republished (a new
	// revision, disabled or not) after the take.
	ReasonTriggerRevisionChanged Reason = "trigger_revision_changed"
	// ReasonTaskRevisionChanged: the task was republished after the take,
	// so the trigger pins a revision that is no longer current.
	ReasonTaskRevisionChanged Reason = "task_revision_changed"
	// ReasonStateVersionChanged: another commit, claim or reset moved the
	// schedule row after the take (the state_version fence).
	ReasonStateVersionChanged Reason = "state_version_changed"
	// ReasonClaimLost: the row's claim now names another owner, token or
	// claim version (cluster).
	ReasonClaimLost Reason = "claim_lost"
	// ReasonClaimExpired: the claim expired in database time before the
	// write (cluster).
	ReasonClaimExpired Reason = "claim_expired"
)

// Failed: verification failed closed or the write failed. Nothing was
// written; the stored state or the caller needs a look.
const (
	// ReasonInvalidParams: the commit cannot have come from a round of
	// this profile (e.g. a ticket without the cluster's claim, or with one
	// on a single-node store).
	ReasonInvalidParams Reason = "invalid_params"
	// ReasonScheduleMissing: the ticket's schedule row (or the definition
	// it stands on) does not exist; rows are never deleted.
	ReasonScheduleMissing Reason = "schedule_missing"
	// ReasonTriggerSnapshotMismatch: the trigger revision the ticket names
	// differs from the ticket (digest, creation time, cron, project)
	// although it was not republished.
	ReasonTriggerSnapshotMismatch Reason = "trigger_snapshot_mismatch"
	// ReasonTaskSnapshotMismatch: the trigger revision pins another task,
	// task revision or task digest than the ticket says.
	ReasonTaskSnapshotMismatch Reason = "task_snapshot_mismatch"
	// ReasonTriggerDigestCorrupt: the stored trigger revision no longer
	// hashes to its stored content digest.
	ReasonTriggerDigestCorrupt Reason = "trigger_digest_corrupt"
	// ReasonTaskDigestCorrupt: the pinned task revision's stored digest is
	// not the one the trigger pins (the cluster also re-hashes its content).
	ReasonTaskDigestCorrupt Reason = "task_digest_corrupt"
	// ReasonTriggerNotSchedulable: the unchanged revision is disabled (or
	// not a cron trigger, or its task disabled); no take returns such a row.
	ReasonTriggerNotSchedulable Reason = "trigger_not_schedulable"
	// ReasonCursorDrift: the row's cursor or pause span differs from the
	// ticket's at the same state version, so it was written without the
	// version bump every writer makes.
	ReasonCursorDrift Reason = "cursor_drift"
	// ReasonClockWentBack: the database clock is behind the claim's
	// acquisition time, or behind the due time a row claimed ahead was
	// decided at (cluster).
	ReasonClockWentBack Reason = "clock_went_back"
	// ReasonDecisionNotFromClaimTime: the ticket's observation time is
	// neither its claim's acquisition time nor, for a row claimed ahead of
	// its due time, that due time (cluster).
	ReasonDecisionNotFromClaimTime Reason = "decision_not_from_claim_time"
	// ReasonCronInvalid: the stored cron expression or time zone no longer
	// parses.
	ReasonCronInvalid Reason = "cron_invalid"
	// ReasonDecisionFailed: the decider refused the ticket's inputs.
	ReasonDecisionFailed Reason = "decision_failed"
	// ReasonDecisionMismatch: the decision is not the one the decider
	// derives from the ticket, or an admit lacks valid run and attempt ids.
	ReasonDecisionMismatch Reason = "decision_mismatch"
	// ReasonExecutionMissing: the pinned task revision has no execution
	// revision for this profile's executor.
	ReasonExecutionMissing Reason = "execution_missing"
	// ReasonExecutionCorrupt: the execution revision does not decode, does
	// not verify against its digest or pins, or belongs to another project.
	ReasonExecutionCorrupt Reason = "execution_corrupt"
	// ReasonOccurrenceExists: the fence held, yet the occurrence's
	// idempotency key already has a Run: the schedule row contradicts the
	// durable history (a concurrent committer would have moved the fence
	// first, so this is never a lost race).
	ReasonOccurrenceExists Reason = "occurrence_exists"
	// ReasonCancelled: the caller gave up before the write finished.
	ReasonCancelled Reason = "cancelled"
	// ReasonRetriesExhausted: every bounded retry lost a serialization race
	// (cluster).
	ReasonRetriesExhausted Reason = "serialization_retries_exhausted"
	// ReasonDiskFull: the disk holding the database is full (SQLite:
	// SQLITE_FULL, at a write or at COMMIT, which then wrote nothing;
	// PostgreSQL: 53100).
	ReasonDiskFull Reason = "disk_full"
	// ReasonInsufficientResources: PostgreSQL is short of another resource
	// (SQLSTATE class 53 without a reason of its own).
	ReasonInsufficientResources Reason = "insufficient_resources"
	// ReasonOutOfSharedMemory: PostgreSQL ran out of shared memory (53200,
	// e.g. the predicate lock table).
	ReasonOutOfSharedMemory Reason = "out_of_shared_memory"
	// ReasonTooManyConnections: PostgreSQL refused a connection (53300).
	ReasonTooManyConnections Reason = "too_many_connections"
	// ReasonStatementCancelled: the server cancelled the statement (57014:
	// statement_timeout or an operator), not our caller.
	ReasonStatementCancelled Reason = "statement_cancelled"
	// ReasonOperatorIntervention: another SQLSTATE of class 57.
	ReasonOperatorIntervention Reason = "operator_intervention"
	// ReasonIdleInTransactionTimeout: the server ended the transaction
	// for idling (25P03).
	ReasonIdleInTransactionTimeout Reason = "idle_in_transaction_timeout"
	// ReasonInsufficientPrivilege: the role lacks a privilege the write
	// needs (42501).
	ReasonInsufficientPrivilege Reason = "insufficient_privilege"
	// ReasonConstraintViolation: the schema refused the write (class 23,
	// other than the idempotency key).
	ReasonConstraintViolation Reason = "constraint_violation"
	// ReasonSchemaError: the statement does not fit the schema (class 42).
	ReasonSchemaError Reason = "schema_error"
	// ReasonWriteFailed: the write failed for a cause with no code of its
	// own, or touched other rows than it must.
	ReasonWriteFailed Reason = "write_failed"
)

// Unavailable: the database went away, or could not be had in time.
const (
	// ReasonLockNotAvailable: a lock wait ended by a time limit (SQLite:
	// another writer held the file past the busy timeout). Nothing was
	// written and nothing is wrong with the stored state: the database was
	// not to be had, as when it goes away.
	ReasonLockNotAvailable Reason = "lock_not_available"
	// ReasonConnectionLost: the connection was lost before COMMIT could
	// run; nothing was written.
	ReasonConnectionLost Reason = "connection_lost"
	// ReasonOutcomeUnknown: COMMIT's reply was lost; whether it committed
	// is settled from durable facts (the idempotency key, the moved
	// fence), never by a blind retry.
	ReasonOutcomeUnknown Reason = "outcome_unknown"
)

// reasonOutcomes is the closed set: each reason and the one outcome it
// goes with.
var reasonOutcomes = map[Reason]Outcome{
	ReasonProjectInactive:          Raced,
	ReasonTriggerRevisionChanged:   Raced,
	ReasonTaskRevisionChanged:      Raced,
	ReasonStateVersionChanged:      Raced,
	ReasonClaimLost:                Raced,
	ReasonClaimExpired:             Raced,
	ReasonInvalidParams:            Failed,
	ReasonScheduleMissing:          Failed,
	ReasonTriggerSnapshotMismatch:  Failed,
	ReasonTaskSnapshotMismatch:     Failed,
	ReasonTriggerDigestCorrupt:     Failed,
	ReasonTaskDigestCorrupt:        Failed,
	ReasonTriggerNotSchedulable:    Failed,
	ReasonCursorDrift:              Failed,
	ReasonClockWentBack:            Failed,
	ReasonDecisionNotFromClaimTime: Failed,
	ReasonCronInvalid:              Failed,
	ReasonDecisionFailed:           Failed,
	ReasonDecisionMismatch:         Failed,
	ReasonExecutionMissing:         Failed,
	ReasonExecutionCorrupt:         Failed,
	ReasonOccurrenceExists:         Failed,
	ReasonCancelled:                Failed,
	ReasonRetriesExhausted:         Failed,
	ReasonDiskFull:                 Failed,
	ReasonInsufficientResources:    Failed,
	ReasonOutOfSharedMemory:        Failed,
	ReasonTooManyConnections:       Failed,
	ReasonStatementCancelled:       Failed,
	ReasonOperatorIntervention:     Failed,
	ReasonIdleInTransactionTimeout: Failed,
	ReasonInsufficientPrivilege:    Failed,
	ReasonConstraintViolation:      Failed,
	ReasonSchemaError:              Failed,
	ReasonWriteFailed:              Failed,
	ReasonLockNotAvailable:         Unavailable,
	ReasonConnectionLost:           Unavailable,
	ReasonOutcomeUnknown:           Unavailable,
}

// clusterOnly are the reasons only the cluster's store gives: its claims,
// its database clock and PostgreSQL's own error classes. A single-node
// store holds no claim and maps SQLite's errors to the other reasons.
var clusterOnly = map[Reason]bool{
	ReasonClaimLost: true, ReasonClaimExpired: true, ReasonClockWentBack: true, ReasonDecisionNotFromClaimTime: true,
	ReasonRetriesExhausted: true, ReasonInsufficientResources: true, ReasonOutOfSharedMemory: true, ReasonTooManyConnections: true, ReasonStatementCancelled: true,
	ReasonOperatorIntervention: true, ReasonIdleInTransactionTimeout: true, ReasonInsufficientPrivilege: true,
	ReasonConstraintViolation: true, ReasonSchemaError: true, ReasonConnectionLost: true,
}

// Reasons lists, sorted, every reason a store of the cluster (cluster) or
// of a single node (!cluster) can give.
func Reasons(cluster bool) []Reason {
	var out []Reason
	for r := range reasonOutcomes {
		if cluster || !clusterOnly[r] {
			out = append(out, r)
		}
	}
	slices.Sort(out)
	return out
}

// Outcome is the outcome r goes with, or "" for a code outside the set.
func (r Reason) Outcome() Outcome { return reasonOutcomes[r] }

// Result is the commit result r stands for.
func (r Reason) Result() CommitResult { return CommitResult{Outcome: r.Outcome(), Reason: r} }

// ReasonOf returns the reason spelled code, if it is one of the set.
// Adapters use it to turn a database's own stable code into a reason.
func ReasonOf(code string) (Reason, bool) {
	r := Reason(code)
	_, ok := reasonOutcomes[r]
	return r, ok
}
