package pgstore

import _ "embed"

// Admission statements (SPEC §6), all inside one SERIALIZABLE transaction.

//go:embed sql/commit_lock.sql
var sqlCommitLock string

//go:embed sql/commit_write.sql
var sqlCommitWrite string

const (
	// The admission transaction is started in the same round trip as the
	// lock statement, and committed in the same round trip as the write.
	sqlBeginSerializable = `BEGIN ISOLATION LEVEL SERIALIZABLE`
	sqlCommit            = `COMMIT`
	// Planning the lock statement's eight-way join costs about ten times
	// executing it, planning the claim more than executing it; their best
	// plans do not depend on the parameters (the lock: TID scan, then
	// primary-key lookups; the claim: each branch walks its index in claim
	// order), so the cached generic plan is used. set_config, not SET LOCAL:
	// the claim runs in no transaction block (SET LOCAL would warn there),
	// only in the implicit transaction of its pipeline, which the setting
	// lasts exactly as long as.
	sqlGenericPlans = `SELECT set_config('plan_cache_mode', 'force_generic_plan', true)`
	// Fallback when the commit has no handle for the claimed row version
	// (or it moved): find the row by primary key.
	sqlScheduleLocate = `SELECT ctid FROM qinglong.trigger_schedules WHERE trigger_id = $1`
)
