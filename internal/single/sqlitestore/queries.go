package sqlitestore

import (
	"embed"
	"fmt"
)

// Every statement lives in queries/<name>.sql with a comment naming the
// invariant it enforces; Go code refers to them only through the variables
// below, so a missing file stops the package from initialising, and
// TestEveryQueryIsListed fails when a file is loaded by nothing or a
// statement over the schema is on neither pool's list. Loading only reads
// the embedded files; nothing registers itself anywhere.
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

// Statements that run before the schema is known to be exact (opening,
// migrating, readiness), or on a connection of their own outside both
// pools: never prepared on a pool.
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
	qPragmaAutoVacuum      = query("pragma_auto_vacuum")
	qPragmaDataVersion     = query("pragma_data_version")
	qPragmaQuickCheck      = query("pragma_quick_check")
	qPragmaIntegrityCheck  = query("pragma_integrity_check")
	qBackupReadBegin       = query("backup_read_begin")
	qBackupPinSnapshot     = query("backup_pin_snapshot")
	qBackupReadEnd         = query("backup_read_end")
	qBackupRollbackMode    = query("backup_copy_rollback_mode")
	qBackupForgetProcesses = query("backup_forget_processes")
	qBackupForgetSessions  = query("backup_forget_sessions")
	qBackupMarkSnapshot    = query("backup_mark_snapshot")
	qRestoredBackupTake    = query("restored_backup_take")
	qScheduleRestoredRead  = query("schedule_restored_read")
	qVacuumInto            = query("vacuum_into")
	qRunsCount             = query("runs_count")
	qWALCheckpointTruncate = query("pragma_wal_checkpoint_truncate")
	qJournalModeWAL        = query("pragma_journal_mode_wal")
)

// Statements over the migrated schema; readQueries and writeQueries say
// on which pool each is prepared.
var (
	qProjectByName           = query("project_by_name")
	qProjectByID             = query("project_by_id")
	qProjectInsert           = query("project_insert")
	qProjectUpdate           = query("project_update")
	qTaskByName              = query("task_by_name")
	qTaskHeads               = query("task_heads")
	qTaskReplays             = query("task_revisions_by_mutations")
	qTaskInsert              = query("task_insert")
	qTaskAdvance             = query("task_advance")
	qTaskRevisionInsert      = query("task_revision_insert")
	qExecutionRevisionInsert = query("execution_revision_insert")
	qTaskRevisionPins        = query("task_revision_pins")
	qTriggerByName           = query("trigger_by_name")
	qTriggerHeads            = query("trigger_heads")
	qTriggerReplays          = query("trigger_revisions_by_mutations")
	qTriggerInsert           = query("trigger_insert")
	qTriggerAdvance          = query("trigger_advance")
	qTriggerRevisionInsert   = query("trigger_revision_insert")
	qScheduleReset           = query("schedule_reset")
	qScheduleSuperseded      = query("schedule_superseded")
	qScheduleReactivated     = query("schedule_reactivated")
	qScheduleReactivate      = query("schedule_reactivate")
	qProjectPauseRead        = query("project_pause_read")
	qProjectPauseWrite       = query("project_pause_write")
	qProjectPauseUnpaused    = query("project_pause_unpaused")
	qProjectPauseTheirs      = query("project_pause_theirs")
	qProjectPauseKept        = query("project_pause_kept")
	qSchedulePauseMark       = query("schedule_pause_mark")
	qSchedulePauseOwn        = query("schedule_pause_own")
	qSchedulePublishedPaused = query("schedule_published_paused")
)

var (
	qScheduleTakeUninitialised = query("schedule_take_uninitialised")
	qScheduleTakeDue           = query("schedule_take_due")
	qScheduleCommitRead        = query("schedule_commit_read")
	qExecutionByTaskRevision   = query("execution_by_task_revision")
	qRunAdmitInsert            = query("run_admit_insert")
	qAttemptAdmitInsert        = query("attempt_admit_insert")
	qAttemptBackfillInsert     = query("attempt_backfill_insert")
	qEventInsert               = query("event_insert")
	qScheduleAdvanceAdmitted   = query("schedule_advance_admitted")
	qScheduleAdvanceCursor     = query("schedule_advance_cursor")
	qScheduleRowSavepoint      = query("schedule_row_savepoint")
	qScheduleRowRollback       = query("schedule_row_rollback")
	qScheduleRowRelease        = query("schedule_row_release")
	qSchedulePageRead          = query("schedule_page_read")
	qSchedulePageAdvance       = query("schedule_page_advance")
	qRunPageInsert             = query("run_page_insert")
	qAttemptPageInsert         = query("attempt_page_insert")
	qEventPageInsert           = query("event_page_insert")
	qSchedulePageSavepoint     = query("schedule_page_savepoint")
	qSchedulePageRollback      = query("schedule_page_rollback")
	qSchedulePageRelease       = query("schedule_page_release")
	qLedgerLastSeq             = query("ledger_last_seq")
	qLedgerInsert              = query("ledger_insert")
	qLedgerCompact             = query("ledger_compact")
	qLedgerTrim                = query("ledger_trim")
	qSchedulePause             = query("schedule_pause")
	qScheduleResume            = query("schedule_resume")
	qSchedulePauseState        = query("schedule_pause_state")
	qScheduleAuditInsert       = query("schedule_audit_insert")
	qPublishAuditInsert        = query("publish_audit_insert")
	qRunsUnfinishedOfTrigger   = query("runs_unfinished_of_trigger")
	qRunByKey                  = query("run_by_key")
	qManualReplay              = query("manual_replay")
	qRunsCronScheduledIn       = query("runs_cron_scheduled_in")
	qRunsLast                  = query("runs_last")
)

var (
	qRunsList              = query("runs_list")
	qRunGet                = query("run_get")
	qRunWaiting            = query("run_waiting")
	qRunProjectArchived    = query("run_project_archived")
	qRunSlotHolders        = query("run_slot_holders")
	qRunRerunSource        = query("run_rerun_source")
	qAttemptsOfRun         = query("attempts_of_run")
	qEventsOfRun           = query("events_of_run")
	qRunsRerunAs           = query("runs_rerun_as")
	qTriggersList          = query("triggers_list")
	qTriggersCount         = query("triggers_count")
	qAttemptsPending       = query("attempts_pending")
	qAttemptWithRun        = query("attempt_with_run")
	qProjectCapOfRun       = query("project_cap_of_run")
	qProjectEnvOfRun       = query("project_env_of_run")
	qAttemptIdentity       = query("attempt_identity")
	qExecutionByID         = query("execution_by_id")
	qAttemptMarkStarting   = query("attempt_mark_starting")
	qAttemptMarkRunning    = query("attempt_mark_running")
	qAttemptMarkFinished   = query("attempt_mark_finished")
	qAttemptMarkLogCut     = query("attempt_mark_log_cut")
	qRunTransition         = query("run_transition")
	qRunNoteEvent          = query("run_note_event")
	qAttemptLiveOwners     = query("attempt_live_owners")
	qAttemptsLiveOfOwner   = query("attempts_live_of_owner")
	qRunCancelRead         = query("run_cancel_read")
	qRunCancelRequested    = query("run_cancel_requested")
	qAttemptsCancelAsked   = query("attempts_cancel_requested")
	qAttemptRetryFacts     = query("attempt_retry_facts")
	qAttemptCancelDeadline = query("attempt_cancel_deadline")
	qAttemptRetryInsert    = query("attempt_retry_insert")
	qAttemptClearBackoff   = query("attempt_clear_backoff")
	qRetriesNext           = query("retries_next")
	qRetriesDue            = query("retries_due")
	qRunQueuedAgain        = query("run_queued_again")
	qTriggerDetail         = query("trigger_detail")
	qLedgerOfTrigger       = query("ledger_of_trigger")
	qAuditOfTrigger        = query("schedule_audit_of_trigger")
	qTokensList            = query("tokens_list")
	qTokenByDigest         = query("token_by_digest")
	qTokenInsert           = query("token_insert")
	qTokenRevoke           = query("token_revoke")
	qTokenTouch            = query("token_touch")
	qUserInsert            = query("user_insert")
	qUsersList             = query("users_list")
	qUserDisable           = query("user_disable")
	qUserDelete            = query("user_delete")
	qUserSetPassword       = query("user_set_password")
	qUserChangePassword    = query("user_change_password")
	qUserEnable            = query("user_enable")
	qUserCredentials       = query("user_credentials")
	qUserByID              = query("user_by_id")
	qUserSignedIn          = query("user_signed_in")
	qUserInsertFirst       = query("user_insert_first")
	qUsersExist            = query("users_exist")
	qUserSetProjects       = query("user_set_projects")
	qUserRole              = query("user_role")
	qUserState             = query("user_state")
	qTwoStepOf             = query("two_step_of")
	qTwoStepBegin          = query("two_step_begin")
	qTwoStepConfirm        = query("two_step_confirm")
	qRecoveryCodeInsert    = query("recovery_code_insert")
	qTwoStepUseStep        = query("two_step_use_step")
	qRecoveryCodeUse       = query("recovery_code_use")
	qTwoStepOff            = query("two_step_off")
	qTwoStepReset          = query("two_step_reset")
	qSessionInsert         = query("session_insert")
	qSessionEvict          = query("session_evict_principal")
	qSessionDeleteExpired  = query("session_delete_expired")
	qSessionByDigest       = query("session_by_digest")
	qSessionSeen           = query("session_seen")
	qSessionEnd            = query("session_end")
	qSessionEndOthers      = query("session_end_others")
	qSessionEndPrincipal   = query("session_end_principal")
	qNotifyFacts           = query("notify_facts")
	qNotifyHistory         = query("notify_history")
	qNotifyRunFacts        = query("notify_run_facts")
	qNotifyInsert          = query("notify_insert")
	qNotifyClaim           = query("notify_claim")
	qNotifyDelivered       = query("notify_delivered")
	qNotifyPromote         = query("notify_promote")
	qNotifyFailed          = query("notify_failed")
	qNotifyList            = query("notify_list")
	qNotifyRetry           = query("notify_retry")
	qNotifyState           = query("notify_state")
	qNotifyProject         = query("notify_project")
	qNotifyRelease         = query("notify_release")
	qNotifySkipFacts       = query("notify_skip_facts")
	qNotifyDue             = query("notify_due")
	qTokenNameHolder       = query("token_name_holder")
	qAuditInsert           = query("audit_insert")
	qAuditList             = query("audit_list")
)

// The sign-ins waiting for their second step (twostep_pending.go), and a
// backup's forgetting them.
var (
	qTwoStepPendingInsert        = query("two_step_pending_insert")
	qTwoStepPendingDeleteExpired = query("two_step_pending_delete_expired")
	qTwoStepPendingOf            = query("two_step_pending_of")
	qTwoStepPendingUse           = query("two_step_pending_use")
	qTwoStepPendingEnd           = query("two_step_pending_end")
	qBackupForgetTwoStepPending  = query("backup_forget_two_step_pending")
)

// Two-step sign-in required of every user (twostep_required.go).
var (
	qTwoStepRequired = query("two_step_required")
	qTwoStepRequire  = query("two_step_require")
	qTwoStepWalled   = query("two_step_walled")
)

// Retention's statements (retention.go).
var (
	qRetentionRunsBatch      = query("retention_runs_batch")
	qRetentionLogsOfRuns     = query("retention_logs_of_runs")
	qRetentionEventsDelete   = query("retention_events_delete")
	qRetentionAttemptsDelete = query("retention_attempts_delete")
	qRetentionRunsDelete     = query("retention_runs_delete")
	qRetentionLogsBatch      = query("retention_logs_batch")
	qRetentionLogsForget     = query("retention_logs_forget")
	qRetentionLogsRecord     = query("retention_logs_record")
	qRetentionLogsRemoved    = query("retention_logs_removed")
	qRetentionLogsLeft       = query("retention_logs_left")
	qRetentionLogBytes       = query("retention_log_bytes")
	qRetentionLogsRunning    = query("retention_logs_running")
	qRetentionEstimate       = query("retention_estimate")
	qRetentionSessions       = query("retention_sessions_batch")
	qRetentionNotifications  = query("retention_notifications_batch")
	qPragmaFreelist          = query("pragma_freelist")
	qPragmaIncrementalVacuum = query("pragma_incremental_vacuum")
)

// The Dependencies page's statements (dependencies.go).
var (
	qDependencyList       = query("dependency_list")
	qDependencyDeclare    = query("dependency_declare")
	qDependencyInstalling = query("dependency_installing")
	qDependencyDelete     = query("dependency_delete")
	qDependencyMirrors    = query("dependency_mirrors")
	qDependencyMirrorSet  = query("dependency_mirror_set")
)

// The Idempotency-Keys of dependencies changes (dependency_keys.go).
var (
	qDependencyKeyDeleteExpired = query("dependency_key_delete_expired")
	qDependencyKeyClaim         = query("dependency_key_claim")
	qDependencyKeyOf            = query("dependency_key_of")
	qDependencyKeyDone          = query("dependency_key_done")
	qDependencyKeyForget        = query("dependency_key_forget")
)

// Backup's statements (backup.go).
var qBackupLoggedAttempts = query("backup_logged_attempts")

// The by-names reads run on the read pool (a dry run) and inside a
// publishing transaction on the writer, so they are prepared on both.
var (
	qTasksByNames        = query("tasks_by_names")
	qTriggersByNames     = query("triggers_by_names")
	qTriggerNamesOfTasks = query("trigger_names_of_tasks")
)

// An export's reads (catalog_definitions.go).
var (
	qTasksOfProject    = query("tasks_of_project")
	qTriggersOfProject = query("triggers_of_project")
	qProjectNames      = query("project_names")
	qProjectNameByID   = query("project_name_by_id")
	qTitlesOfProject   = query("titles_of_project")
	qTaskTitleSet      = query("task_title_set")
	qTriggerTitleSet   = query("trigger_title_set")
)

// Statements of a project's deletion (project_delete.go).
var (
	qProjectDeleteTarget             = query("project_delete_target")
	qProjectDeleteUnfinished         = query("project_delete_unfinished")
	qProjectDeleteTokens             = query("project_delete_tokens")
	qProjectDeleteCounts             = query("project_delete_counts")
	qProjectDeleteRunsPage           = query("project_delete_runs_page")
	qProjectDeleteLogsRecord         = query("project_delete_logs_record")
	qProjectDeleteLedger             = query("project_delete_ledger")
	qProjectDeleteLedgerCompacted    = query("project_delete_ledger_compacted")
	qProjectDeleteAudit              = query("project_delete_audit")
	qProjectDeleteSchedules          = query("project_delete_schedules")
	qProjectDeleteNotifications      = query("project_delete_notifications")
	qProjectDeletePause              = query("project_delete_pause")
	qProjectDeleteTriggerRevisions   = query("project_delete_trigger_revisions")
	qProjectDeleteTriggers           = query("project_delete_triggers")
	qProjectDeleteExecutionRevisions = query("project_delete_execution_revisions")
	qProjectDeleteTaskRevisions      = query("project_delete_task_revisions")
	qProjectDeleteTasks              = query("project_delete_tasks")
	qProjectDeleteProject            = query("project_delete_project")
	qProjectDeleteLogsLeft           = query("project_delete_logs_left")
	qProjectDeleteLogsDone           = query("project_delete_logs_done")
)

// readQueries are prepared on the read pool once the store is ready
// (prepareAll): the reads of listings, the scheduler's candidate page and
// the dispatcher's queue.
var readQueries = []string{
	qBackupLoggedAttempts, qDependencyList, qDependencyMirrors,
	qProjectByName, qTaskByName, qTriggerByName, qTasksByNames, qTriggersByNames, qTriggerNamesOfTasks,
	qTasksOfProject, qTriggersOfProject, qProjectNames, qProjectNameByID, qTitlesOfProject,
	qScheduleTakeUninitialised, qScheduleTakeDue, qScheduleNextDue, qScheduleReanchorRead, qScheduleRecheckStale, qClockNewestRecorded,
	qRunsList, qRunsLast, qRunGet, qRunWaiting, qRunProjectArchived, qRunSlotHolders, qAttemptsOfRun, qEventsOfRun, qRunsRerunAs, qTriggersList, qTriggersCount, qAttemptsPending, qAttemptLiveOwners,
	qAttemptsCancelAsked, qTriggerDetail, qLedgerOfTrigger, qAuditOfTrigger, qProjectPauseRead, qTokensList, qTokenByDigest, qUsersList, qUserCredentials, qUserByID, qUsersExist, qTwoStepOf, qTwoStepPendingOf, qTwoStepRequired, qTwoStepWalled, qSessionByDigest, qNotifyList, qNotifyDue, qAuditList, qNotifyProject,
	qHandoverRead, qProjectDeleteTarget, qProjectDeleteCounts, qProjectDeleteUnfinished, qProjectDeleteTokens, qProjectDeleteLogsLeft, qRunsQueuedCount,
	qRetentionEstimate, qRetentionLogsRunning, qRetentionLogBytes, qRetentionLogsLeft, qMonitorBacklog, qMonitorBacklogInProjects, qMonitorRunState, qMonitorOldestQueued, qMonitorTriggerActivity, qRetriesNext,
}

// writeQueries are prepared on the writer: everything that runs inside a
// BEGIN IMMEDIATE transaction.
var writeQueries = []string{
	qProjectByID, qProjectInsert, qProjectUpdate, qScheduleReactivated, qScheduleReactivate,
	qTaskHeads, qTaskReplays, qTaskInsert, qTaskAdvance, qTaskRevisionInsert, qExecutionRevisionInsert, qTaskRevisionPins,
	qTriggerHeads, qTriggerReplays, qTriggerInsert, qTriggerAdvance, qTriggerRevisionInsert, qScheduleReset, qScheduleSuperseded,
	qTasksByNames, qTriggersByNames, qTriggerNamesOfTasks, qTitlesOfProject, qTaskTitleSet, qTriggerTitleSet,
	qScheduleCommitRead, qExecutionByTaskRevision, qRunAdmitInsert, qRunRerunSource, qAttemptAdmitInsert, qAttemptBackfillInsert, qEventInsert,
	qScheduleAdvanceAdmitted, qScheduleAdvanceCursor, qScheduleRowSavepoint, qScheduleRowRollback, qScheduleRowRelease, qScheduleRecheckLater, qScheduleReanchor, qScheduleRecheckForgetStale,
	qSchedulePageRead, qSchedulePageAdvance, qRunPageInsert, qAttemptPageInsert, qEventPageInsert,
	qSchedulePageSavepoint, qSchedulePageRollback, qSchedulePageRelease,
	qRestoredBackupTake, qScheduleRestoredRead,
	qProjectCapOfRun, qProjectEnvOfRun, qAttemptWithRun, qAttemptIdentity, qExecutionByID, qAttemptMarkStarting, qAttemptMarkRunning, qAttemptMarkFinished, qAttemptMarkLogCut,
	qRunTransition, qRunNoteEvent, qAttemptsLiveOfOwner, qRunCancelRead, qRunCancelRequested,
	qAttemptRetryFacts, qAttemptCancelDeadline, qAttemptRetryInsert, qAttemptClearBackoff, qRetriesDue, qRunQueuedAgain,
	qLedgerLastSeq, qLedgerInsert, qLedgerCompact, qLedgerTrim,
	qSchedulePause, qScheduleResume, qSchedulePauseState, qScheduleAuditInsert, qScheduleAdoptRead, qScheduleAdopt, qHandoverMark, qHandoverTakeBack,
	qProjectPauseRead, qProjectPauseWrite, qProjectPauseUnpaused, qProjectPauseTheirs, qProjectPauseKept, qSchedulePauseMark, qSchedulePauseOwn, qSchedulePublishedPaused, qPublishAuditInsert, qRunsUnfinishedOfTrigger,
	qRunByKey, qManualReplay, qRunsCronScheduledIn,
	qTokenInsert, qTokenNameHolder, qTokenRevoke, qTokenTouch, qAuditInsert,
	qDependencyDeclare, qDependencyInstalling, qDependencyDelete, qDependencyMirrorSet,
	qDependencyKeyDeleteExpired, qDependencyKeyClaim, qDependencyKeyOf, qDependencyKeyDone, qDependencyKeyForget,
	qUserInsert, qUserDisable, qUserEnable, qUserDelete, qUserSetPassword, qUserChangePassword, qUserSignedIn, qUserInsertFirst, qUserSetProjects, qUserRole, qUserState,
	qTwoStepOf, qTwoStepBegin, qTwoStepConfirm, qRecoveryCodeInsert, qTwoStepUseStep, qRecoveryCodeUse, qTwoStepOff, qTwoStepReset,
	qTwoStepPendingInsert, qTwoStepPendingDeleteExpired, qTwoStepPendingUse, qTwoStepPendingEnd, qTwoStepRequire,
	qSessionInsert, qSessionEvict, qSessionDeleteExpired, qSessionSeen, qSessionEnd, qSessionEndOthers, qSessionEndPrincipal,
	qNotifyFacts, qNotifyRunFacts, qNotifyHistory, qNotifyInsert, qNotifyClaim, qNotifyDelivered, qNotifyPromote, qNotifyFailed, qNotifyRetry, qNotifyState, qNotifyRelease, qNotifySkipFacts,
	qRetentionRunsBatch, qRetentionLogsOfRuns, qRetentionEventsDelete, qRetentionAttemptsDelete, qRetentionRunsDelete,
	qProjectDeleteTarget, qProjectDeleteUnfinished, qProjectDeleteTokens, qProjectDeleteCounts, qProjectDeleteRunsPage, qProjectDeleteLogsRecord, qProjectDeleteLedger, qProjectDeleteLedgerCompacted, qProjectDeleteAudit, qProjectDeleteSchedules, qProjectDeleteNotifications, qProjectDeletePause, qProjectDeleteTriggerRevisions, qProjectDeleteTriggers, qProjectDeleteExecutionRevisions, qProjectDeleteTaskRevisions, qProjectDeleteTasks, qProjectDeleteProject, qProjectDeleteLogsDone,
	qRetentionLogsBatch, qRetentionLogsForget, qRetentionLogsRecord, qRetentionLogsRemoved, qRetentionLogBytes, qRetentionLogsRunning, qRetentionNotifications, qRetentionSessions, qPragmaFreelist, qPragmaIncrementalVacuum,
}
