package pgstore

import _ "embed"

// Admission statements (SPEC §6), all inside one SERIALIZABLE transaction.

//go:embed sql/commit_lock.sql
var sqlCommitLock string

//go:embed sql/commit_schedule.sql
var sqlCommitSchedule string

const (
	// The admission transaction is started in the same round trip as the
	// lock statement, and committed explicitly.
	sqlBeginSerializable = `BEGIN ISOLATION LEVEL SERIALIZABLE`
	sqlCommit            = `COMMIT`
	// Planning the lock statement's eight-way join costs about ten times
	// executing it; its best plan (TID scan, then primary-key lookups) does
	// not depend on the parameters, so the cached generic plan is used.
	sqlGenericPlans = `SET LOCAL plan_cache_mode = force_generic_plan`
	// Fallback when the commit has no handle for the claimed row version
	// (or it moved): find the row by primary key.
	sqlScheduleLocate = `SELECT ctid FROM qinglong.trigger_schedules WHERE trigger_id = $1`
	// The queued Run: version 2 and last event 2 (created, queued); the
	// unique (project_id, idempotency_key) makes a replay create nothing.
	sqlRunInsert = `INSERT INTO qinglong.runs
		(id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id, idempotency_key,
		 scheduled_for_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'queued', 2, 2, $10, $10, $10)`
	// Attempt 1, claimed, for a remote worker; every dispatch field NULL
	// (the pristine shape startup recovery recognises).
	sqlAttemptInsert = `INSERT INTO qinglong.attempts (id, run_id, number, executor, state, created_at_ms, updated_at_ms)
		VALUES ($1, $2, 1, $3, 'claimed', $4, $4)`
	// One event per statement, so the sequence is explicit.
	sqlEventInsert = `INSERT INTO qinglong.run_events (run_id, seq, name, payload, created_at_ms) VALUES ($1, $2, $3, $4, $5)`
)
