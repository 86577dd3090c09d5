package sqlitestore

import (
	"embed"
	"fmt"
)

// Every statement lives in queries/<name>.sql with a comment naming the
// invariant it enforces; Go code refers to them only through the variables
// below, so a missing file fails the package's first test, not production.
//
//go:embed queries/*.sql
var queryFS embed.FS

func query(name string) string {
	b, err := queryFS.ReadFile("queries/" + name + ".sql")
	if err != nil {
		panic(fmt.Sprintf("sqlitestore: missing embedded query %s: %v", name, err))
	}
	return string(b)
}

// readQuery and writeQuery name statements over the migrated schema that
// run on the read pool or the writer; each is prepared on its pool once the
// store is ready.
func readQuery(name string) string {
	q := query(name)
	readQueries = append(readQueries, q)
	return q
}

func writeQuery(name string) string {
	q := query(name)
	writeQueries = append(writeQueries, q)
	return q
}

var readQueries, writeQueries []string

var (
	qPing                  = query("ping")
	qSchemaObjects         = query("schema_objects")
	qSchemaObjectCount     = query("schema_object_count")
	qMigrationsTableExists = query("migrations_table_exists")
	qMigrationsHistory     = query("migrations_history")
	qMigrationRecord       = query("migration_record")
	qCapabilityRead        = query("capability_read")
	qCapabilityAdvance     = query("capability_advance")
	qSQLiteVersion         = query("sqlite_version")
	qPragmaJournalMode     = query("pragma_journal_mode")
	qPragmaForeignKeys     = query("pragma_foreign_keys")
)

var (
	qProjectByName           = readQuery("project_by_name")
	qProjectByID             = writeQuery("project_by_id")
	qProjectInsert           = writeQuery("project_insert")
	qProjectUpdate           = writeQuery("project_update")
	qTaskByName              = readQuery("task_by_name")
	qTaskHeads               = writeQuery("task_heads")
	qTaskReplays             = writeQuery("task_revisions_by_mutations")
	qTaskInsert              = writeQuery("task_insert")
	qTaskAdvance             = writeQuery("task_advance")
	qTaskRevisionInsert      = writeQuery("task_revision_insert")
	qExecutionRevisionInsert = writeQuery("execution_revision_insert")
	qTaskRevisionPins        = writeQuery("task_revision_pins")
	qTriggerByName           = readQuery("trigger_by_name")
	qTriggerHeads            = writeQuery("trigger_heads")
	qTriggerReplays          = writeQuery("trigger_revisions_by_mutations")
	qTriggerInsert           = writeQuery("trigger_insert")
	qTriggerAdvance          = writeQuery("trigger_advance")
	qTriggerRevisionInsert   = writeQuery("trigger_revision_insert")
	qScheduleReset           = writeQuery("schedule_reset")
)

var (
	qScheduleTakeUninitialised = readQuery("schedule_take_uninitialised")
	qScheduleTakeDue           = readQuery("schedule_take_due")
	qScheduleCommitRead        = writeQuery("schedule_commit_read")
	qExecutionByTaskRevision   = writeQuery("execution_by_task_revision")
	qRunAdmitInsert            = writeQuery("run_admit_insert")
	qAttemptAdmitInsert        = writeQuery("attempt_admit_insert")
	qEventInsert               = writeQuery("event_insert")
	qScheduleAdvanceAdmitted   = writeQuery("schedule_advance_admitted")
	qScheduleAdvanceCursor     = writeQuery("schedule_advance_cursor")
)

var (
	qRunsList            = readQuery("runs_list")
	qRunGet              = readQuery("run_get")
	qAttemptsOfRun       = readQuery("attempts_of_run")
	qEventsOfRun         = readQuery("events_of_run")
	qTriggersList        = readQuery("triggers_list")
	qAttemptsPending     = readQuery("attempts_pending")
	qAttemptWithRun      = writeQuery("attempt_with_run")
	qExecutionByID       = writeQuery("execution_by_id")
	qAttemptMarkStarting = writeQuery("attempt_mark_starting")
	qAttemptMarkRunning  = writeQuery("attempt_mark_running")
	qAttemptMarkFinished = writeQuery("attempt_mark_finished")
	qRunTransition       = writeQuery("run_transition")
	qRunNoteEvent        = writeQuery("run_note_event")
	qAttemptLiveOwners   = readQuery("attempt_live_owners")
	qAttemptsLiveOfOwner = writeQuery("attempts_live_of_owner")
)
