package pgstore

// The statements of the adapter, bound by name to their blocks in
// sql/*.sql (sqlload.go describes the format). Grouped by file.

// sql/claim.sql, sql/commit_lock.sql, sql/commit_write.sql,
// sql/admission.sql: claiming and admitting.
var (
	sqlClaim          = stmt("Claim")
	sqlClaimRelease   = stmt("ClaimRelease")
	sqlCommitLock     = stmt("CommitLock")
	sqlBeginAdmission = stmt("BeginAdmission")
	sqlCommit         = stmt("Commit")
	sqlRollback       = stmt("Rollback")
	sqlGenericPlans   = stmt("GenericPlans")
	sqlCustomPlans    = stmt("CustomPlans")
	sqlScheduleLocate = stmt("ScheduleLocate")
	sqlNowMs          = stmt("NowMs")

	// sqlCommitWrite is the text PostgreSQL receives; bind its arguments
	// by name with commitWriteParams.args.
	sqlCommitWrite, commitWriteParams = namedStmt("CommitWrite")
)

// sql/commit_page.sql: admitting a page at once.
var (
	sqlCommitPageLock                         = stmt("CommitPageLock")
	sqlCommitPageProbe                        = stmt("CommitPageProbe")
	sqlCommitPageWrite, commitPageWriteParams = namedStmt("CommitPageWrite")
)

// sql/reanchor.sql: moving back the cursors a clock set back left ahead.
var (
	sqlReanchorRead  = stmt("ReanchorRead")
	sqlReanchorWrite = stmt("ReanchorWrite")
)

// sql/adopt.sql: starting a schedule at a handed-over position.
var (
	sqlAdoptRead  = stmt("AdoptRead")
	sqlAdoptWrite = stmt("AdoptWrite")
)

// sql/manual.sql: run now and backfill.
var (
	sqlManualTouch                      = stmt("ManualTouch")
	sqlRunByKey                         = stmt("RunByKey")
	sqlManualReplay                     = stmt("ManualReplay")
	sqlManualReplayAnyProject           = stmt("ManualReplayAnyProject")
	sqlRerunSource                      = stmt("RerunSource")
	sqlRunsCronScheduledIn              = stmt("RunsCronScheduledIn")
	sqlManualInsert, manualInsertParams = namedStmt("ManualInsert")
)

// sql/monitor.sql: what monitoring reads.
var (
	sqlMonitorBacklog = stmt("MonitorBacklog")
	// sqlMonitorBacklogInProjects is a bound console user's backlog.
	sqlMonitorBacklogInProjects = stmt("MonitorBacklogInProjects")
	sqlMonitorRunStates         = stmt("MonitorRunStates")
	sqlMonitorOldestQueued      = stmt("MonitorOldestQueued")
	sqlMonitorWorkers           = stmt("MonitorWorkers")
	sqlMonitorUnplaceable       = stmt("MonitorUnplaceable")
	sqlMonitorWorkerStates      = stmt("MonitorWorkerStates")
	// sqlMonitorTriggerActivity is per-trigger monitoring's one read.
	sqlMonitorTriggerActivity = stmt("MonitorTriggerActivity")
)

// sql/server.sql: which database server a connection reached.
var (
	sqlServerAddress    = stmt("ServerAddress")
	sqlServerInRecovery = stmt("ServerInRecovery")
	sqlServerSystemID   = stmt("ServerSystemID")
	sqlServerTimeline   = stmt("ServerTimeline")
)

// sql/recovery_page.sql: startup recovery.
var sqlRecoveryPage = stmt("RecoveryPage")

// sql/publish.sql: one project, and reads by name.
var (
	sqlPublishPrivilege        = stmt("PublishPrivilege")
	sqlProjectStatusForPublish = stmt("ProjectStatusForPublish")
	sqlProjectByName           = stmt("ProjectByName")
	sqlProjectLock             = stmt("ProjectLock")
	sqlProjectInsert           = stmt("ProjectInsert")
	sqlProjectUpdate           = stmt("ProjectUpdate")
	sqlTaskCurrentByName       = stmt("TaskCurrentByName")
	sqlTriggerCurrentByName    = stmt("TriggerCurrentByName")
	sqlTitlesOfProject         = stmt("TitlesOfProject")
	sqlTaskTitleSet            = stmt("TaskTitleSet")
	sqlTriggerTitleSet         = stmt("TriggerTitleSet")
)

// sql/definitions.sql: an export's reads.
var (
	sqlTasksOfProject    = stmt("TasksOfProject")
	sqlTriggersOfProject = stmt("TriggersOfProject")
	sqlProjectNames      = stmt("ProjectNames")
	sqlProjectNameByID   = stmt("ProjectNameByID")
)

// sql/publish_batch.sql: the set-based statements of a publishing batch.
var (
	sqlTasksByNames             = stmt("TasksByNames")
	sqlTriggersByNames          = stmt("TriggersByNames")
	sqlTriggerNamesOfTasks      = stmt("TriggerNamesOfTasks")
	sqlTaskReplays              = stmt("TaskReplays")
	sqlTriggerReplays           = stmt("TriggerReplays")
	sqlTaskHeadsLock            = stmt("TaskHeadsLock")
	sqlTriggerHeadsLock         = stmt("TriggerHeadsLock")
	sqlTaskHeadsInsert          = stmt("TaskHeadsInsert")
	sqlTaskHeadsAdvance         = stmt("TaskHeadsAdvance")
	sqlPinnedTaskRevisions      = stmt("PinnedTaskRevisions")
	sqlTriggerHeadsInsert       = stmt("TriggerHeadsInsert")
	sqlTriggerHeadsAdvance      = stmt("TriggerHeadsAdvance")
	sqlSchedulesUpsert          = stmt("SchedulesUpsert")
	sqlSchedulesPublishedPaused = stmt("SchedulesPublishedPaused")
	sqlSupersededSchedules      = stmt("SupersededSchedules")
	sqlReactivatedSchedules     = stmt("ReactivatedSchedules")
	sqlSchedulesReactivate      = stmt("SchedulesReactivate")

	sqlTaskRevisionsInsert, taskRevisionsInsertParams       = namedStmt("TaskRevisionsInsert")
	sqlExecutionsInsert, executionsInsertParams             = namedStmt("ExecutionsInsert")
	sqlTriggerRevisionsInsert, triggerRevisionsInsertParams = namedStmt("TriggerRevisionsInsert")
	sqlSupersededLedgerInsert, supersededLedgerInsertParams = namedStmt("SupersededLedgerInsert")
)

// sql/migrate.sql: the migration runner.
var (
	sqlMigrateLock       = stmt("MigrateLock")
	sqlMigrateUnlock     = stmt("MigrateUnlock")
	sqlSchemaExists      = stmt("SchemaExists")
	sqlHistoryPresent    = stmt("HistoryPresent")
	sqlHistoryRead       = stmt("HistoryRead")
	sqlHistoryInsert     = stmt("HistoryInsert")
	sqlCapabilityPresent = stmt("CapabilityPresent")
	sqlCapabilityRead    = stmt("CapabilityRead")
	sqlCapabilityAdvance = stmt("CapabilityAdvance")
)

// sql/readiness.sql: the readiness checks.
var (
	sqlPinSearchPath        = stmt("PinSearchPath")
	sqlServerState          = stmt("ServerState")
	sqlCapabilityAll        = stmt("CapabilityAll")
	sqlSchemaFingerprint    = stmt("SchemaFingerprint")
	sqlPrivilegeFingerprint = stmt("PrivilegeFingerprint")
	sqlRolesOfPrefix        = stmt("RolesOfPrefix")
	sqlSessionSearchPath    = stmt("SessionSearchPath")
	sqlSessionStmtTimeout   = stmt("SessionStatementTimeout")
	sqlLiftStmtTimeout      = stmt("LiftStatementTimeout")
	sqlRoleSettings         = stmt("RoleSettings")
	sqlUnsafeSchemas        = stmt("UnsafeSchemas")
	sqlServerSettings       = stmt("ServerSettings")
	sqlSessionRolePowers    = stmt("SessionRolePowers")
)

// sql/runs.sql: run and trigger reads.
var (
	sqlRunColumns     = stmt("RunColumns")
	sqlRunsHeldBy     = stmt("RunColumnsHeldBy")
	sqlWorkerIDByName = stmt("WorkerIDByName")
	sqlRunAttempts    = stmt("RunAttempts")
	sqlRunEvents      = stmt("RunEvents")
	sqlRunsRerunAs    = stmt("RunsRerunAs")
	sqlRunsLast       = stmt("RunsLast")
	sqlRunWaiting     = stmt("RunWaiting")
	sqlRunArchived    = stmt("RunProjectArchived")
	sqlTriggerList    = stmt("TriggerList")
	sqlTriggerCount   = stmt("TriggerCount")
)

// sql/roles.sql: the reads of role setup.
var (
	sqlRoleExists      = stmt("RoleExists")
	sqlRoleMemberships = stmt("RoleMemberships")
	sqlSchemaTables    = stmt("SchemaTables")
	sqlSchemaFunctions = stmt("SchemaFunctions")
)

// sql/workers_admin.sql: worker credentials (admin role).
var (
	sqlWorkerList   = stmt("WorkerList")
	sqlWorkerRevoke = stmt("WorkerRevoke")
	sqlWorkerDrain  = stmt("WorkerDrain")
	sqlWorkerResume = stmt("WorkerResume")

	sqlWorkerInsert, workerInsertParams = namedStmt("WorkerInsert")
	sqlWorkerRotate, workerRotateParams = namedStmt("WorkerRotate")
)

// sql/workers_session.sql: authentication and sessions.
var (
	sqlWorkerAuthenticate         = stmt("WorkerAuthenticate")
	sqlWorkerForRegister          = stmt("WorkerForRegister")
	sqlSessionState               = stmt("SessionState")
	sqlSessionStateWatched        = stmt("SessionStateWatched")
	sqlSessionStopsAsked          = stmt("SessionStopsAsked")
	sqlSessionStopping            = stmt("SessionStopping")
	sqlSessionHeardDrain          = stmt("SessionHeardDrain")
	sqlSessionHeardDrainOfAttempt = stmt("SessionHeardDrainOfAttempt")
	sqlSessionUnstarted           = stmt("SessionUnstartedGrants")

	sqlSessionOpen, sessionOpenParams           = namedStmt("SessionOpen")
	sqlSessionHeartbeat, sessionHeartbeatParams = namedStmt("SessionHeartbeat")
	sqlSessionEnd, sessionEndParams             = namedStmt("SessionEnd")
)

// sql/workers_dispatch.sql: pulls.
var (
	sqlGrantsOfOffer, grantsOfOfferParams = namedStmt("GrantsOfOffer")
	sqlDispatch, dispatchParams           = namedStmt("Dispatch")
	sqlCappedProjectsLock                 = stmt("CappedProjectsLock")
	sqlRunProjectCap                      = stmt("RunProjectCap")
	sqlProjectSlotHolders                 = stmt("ProjectSlotHolders")
)

// sql/workers_lease.sql: start, renew, log, complete, cancel.
var (
	sqlLeaseFacts            = stmt("LeaseFacts")
	sqlAttemptNewerThanAll   = stmt("AttemptNewerThanAll")
	sqlAttemptMarkRolledBack = stmt("AttemptMarkRolledBack")
	sqlLatestAttempt         = stmt("LatestAttempt")
	sqlCompletionBounds      = stmt("CompletionBounds")
	sqlFinishedRunNames      = stmt("FinishedRunNames")
	sqlLogFacts              = stmt("LogFacts")
	sqlLogChunkAt            = stmt("LogChunkAt")
	sqlLogLength             = stmt("LogLength")
	sqlLogChunksFrom         = stmt("LogChunksFrom")

	sqlAttemptStart, attemptStartParams             = namedStmt("AttemptStart")
	sqlAttemptRenew, attemptRenewParams             = namedStmt("AttemptRenew")
	sqlAttemptRelease, attemptReleaseParams         = namedStmt("AttemptRelease")
	sqlAttemptEnd, attemptEndParams                 = namedStmt("AttemptEnd")
	sqlAttemptRetryInsert, attemptRetryInsertParams = namedStmt("AttemptRetryInsert")
	sqlRunAdvance, runAdvanceParams                 = namedStmt("RunAdvance")
	sqlLogAppend, logAppendParams                   = namedStmt("LogAppend")
)

// sql/workers_sweep.sql: the lease sweep.
var (
	sqlSweepStartedPage = stmt("SweepStartedPage")
	sqlSweepSessions    = stmt("SweepSessions")

	sqlSweepRelease, sweepReleaseParams         = namedStmt("SweepRelease")
	sqlSweepRequeue, sweepRequeueParams         = namedStmt("SweepRequeue")
	sqlSweepNoteWaiting, sweepNoteWaitingParams = namedStmt("SweepNoteWaiting")
)

// sql/notices.sql: the notices replicas send each other.
var (
	sqlNotifyRunsQueued       = stmt("NotifyRunsQueued")
	sqlNotifySessionChanged   = stmt("NotifySessionChanged")
	sqlNotifySchedulesChanged = stmt("NotifySchedulesChanged")
	sqlNotifyStopAsked        = stmt("NotifyStopAsked")
	sqlListenRunsQueued       = stmt("ListenRunsQueued")
	sqlListenSchedulesChanged = stmt("ListenSchedulesChanged")
	sqlListenStopAsked        = stmt("ListenStopAsked")
)

// sql/ledger.sql: the occurrence ledger's reads, pause and resume.
var (
	sqlSchedulePauseState  = stmt("SchedulePauseState")
	sqlSchedulePause       = stmt("SchedulePause")
	sqlSchedulePauseStart  = stmt("SchedulePauseStarted")
	sqlScheduleResume      = stmt("ScheduleResume")
	sqlScheduleAuditInsert = stmt("ScheduleAuditInsert")
	sqlTriggerDetail       = stmt("TriggerDetail")
	sqlLedgerOfTrigger     = stmt("LedgerOfTrigger")
	sqlAuditOfTrigger      = stmt("ScheduleAuditOfTrigger")
)

// sql/project_pause.sql: pausing and resuming a project.
var (
	sqlProjectPauseRead     = stmt("ProjectPauseRead")
	sqlProjectPauseWrite    = stmt("ProjectPauseWrite")
	sqlProjectPauseUnpaused = stmt("ProjectPauseUnpaused")
	sqlProjectPauseTheirs   = stmt("ProjectPauseTheirs")
	sqlProjectPauseKept     = stmt("ProjectPauseKept")
	sqlSchedulePauseMark    = stmt("SchedulePauseMark")
	sqlSchedulePauseOwn     = stmt("SchedulePauseOwn")
)

// sql/tokens.sql: API tokens.
var (
	sqlTokenInsert   = stmt("TokenInsert")
	sqlTokenHolder   = stmt("TokenNameHolder")
	sqlTokensList    = stmt("TokensList")
	sqlTokenRevoke   = stmt("TokenRevoke")
	sqlAuditInsert   = stmt("AuditInsert")
	sqlAuditList     = stmt("AuditList")
	sqlUserNameOf    = stmt("UserNameOf")
	sqlTokenByDigest = stmt("TokenByDigest")
	sqlTokenTouch    = stmt("TokenTouch")
)

// sql/users.sql: console user accounts.
var (
	sqlUserInsert      = stmt("UserInsert")
	sqlUsersList       = stmt("UsersList")
	sqlUserDisable     = stmt("UserDisable")
	sqlUserDelete      = stmt("UserDelete")
	sqlUserSetPassword = stmt("UserSetPassword")
	sqlUserEnable      = stmt("UserEnable")
	sqlUserCredentials = stmt("UserCredentials")
	sqlUserByID        = stmt("UserByID")
	sqlUserSignedIn    = stmt("UserSignedIn")
	sqlUsersLockFirst  = stmt("UsersLockForFirst")
	sqlUserInsertFirst = stmt("UserInsertFirst")
	sqlUsersExist      = stmt("UsersExist")
	sqlUserSetProjects = stmt("UserSetProjects")
	sqlUserRole        = stmt("UserRole")
	sqlUserState       = stmt("UserState")
	// The runtime role's two writes on accounts, through the functions of
	// migration pg-0035.
	sqlFirstOwnerCreate = stmt("FirstOwnerCreate")
	sqlPasswordChange   = stmt("PasswordChange")
)

// sql/two_step.sql: two-step sign-in.
var (
	sqlTwoStepOf          = stmt("TwoStepOf")
	sqlTwoStepBegin       = stmt("TwoStepBegin")
	sqlTwoStepConfirm     = stmt("TwoStepConfirm")
	sqlRecoveryCodeInsert = stmt("RecoveryCodeInsert")
	sqlTwoStepUseStep     = stmt("TwoStepUseStep")
	sqlRecoveryCodeUse    = stmt("RecoveryCodeUse")
	sqlTwoStepOff         = stmt("TwoStepOff")
	sqlTwoStepReset       = stmt("TwoStepReset")
	sqlUserIDOf           = stmt("UserIDOf")
)

// sql/dependency_keys.sql: the Idempotency-Keys of dependencies changes.
var (
	sqlDependencyKeyDeleteExpired = stmt("DependencyKeyDeleteExpired")
	sqlDependencyKeyClaim         = stmt("DependencyKeyClaim")
	sqlDependencyKeyOf            = stmt("DependencyKeyOf")
	sqlDependencyKeyDone          = stmt("DependencyKeyDone")
	sqlDependencyKeyForget        = stmt("DependencyKeyForget")
)

// sql/two_step_pending.sql: the sign-ins waiting for their second step.
var (
	sqlTwoStepPendingDeleteExpired = stmt("TwoStepPendingDeleteExpired")
	sqlTwoStepPendingInsert        = stmt("TwoStepPendingInsert")
	sqlTwoStepPendingOf            = stmt("TwoStepPendingOf")
	sqlTwoStepPendingUse           = stmt("TwoStepPendingUse")
	sqlTwoStepPendingEnd           = stmt("TwoStepPendingEnd")
)

// sql/two_step_required.sql: two-step sign-in required of every user.
var (
	sqlTwoStepRequired = stmt("TwoStepRequired")
	sqlTwoStepRequire  = stmt("TwoStepRequire")
	sqlTwoStepWalled   = stmt("TwoStepWalled")
)

// sql/replicas.sql: replica heartbeats.
var (
	sqlReplicaBeat            = stmt("ReplicaBeat")
	sqlReplicaStopped         = stmt("ReplicaStopped")
	sqlReplicaList            = stmt("ReplicaList")
	sqlReplicaPrune           = stmt("ReplicaPrune")
	sqlReplicaClusterLastSeen = stmt("ReplicaClusterLastSeen")
	sqlWorkersHoldRecord      = stmt("WorkersHoldRecord")
)

// sql/notify.sql: the notification outbox.
var (
	sqlNotifyFacts     = stmt("NotifyFacts")
	sqlNotifyHistory   = stmt("NotifyHistory")
	sqlNotifyOutput    = stmt("NotifyOutput")
	sqlNotifyRunFacts  = stmt("NotifyRunFacts")
	sqlNotifyInsert    = stmt("NotifyInsert")
	sqlNotifyClaim     = stmt("NotifyClaim")
	sqlNotifyDelivered = stmt("NotifyDelivered")
	sqlNotifyFailed    = stmt("NotifyFailed")
	sqlNotifyList      = stmt("NotifyList")
	sqlNotifyRetry     = stmt("NotifyRetry")
	sqlNotifyState     = stmt("NotifyState")
	sqlNotifyProject   = stmt("NotifyProject")
)

// sql/project_delete.sql: a project's deletion (maintenance role).
var (
	sqlProjectDeleteLock        = stmt("ProjectDeleteLock")
	sqlProjectDeleteCounts      = stmt("ProjectDeleteCounts")
	sqlProjectDeleteUnfinished  = stmt("ProjectDeleteUnfinished")
	sqlProjectDeleteTokens      = stmt("ProjectDeleteTokens")
	sqlProjectDeleteRuns        = stmt("ProjectDeleteRuns")
	sqlProjectDeleteDefinitions = stmt("ProjectDeleteDefinitions")
)

// sql/retention.sql: retention (maintenance role).
var (
	sqlRetentionSettings   = stmt("RetentionSettings")
	sqlRetentionRuns       = stmt("RetentionRuns")
	sqlRetentionLogsAged   = stmt("RetentionLogsAged")
	sqlRetentionLogsOldest = stmt("RetentionLogsOldest")
	sqlRetentionLogsDelete = stmt("RetentionLogsDelete")
	sqlRetentionLogBytes   = stmt("RetentionLogBytes")
	sqlRetentionCapLock    = stmt("RetentionCapLock")
	sqlRetentionEstimate   = stmt("RetentionEstimate")
	sqlRetentionNotifs     = stmt("RetentionNotifications")
	sqlRetentionSessions   = stmt("RetentionSessions")
)

// sql/sessions.sql: console sessions.
var (
	sqlConsoleSessionDeleteExpired = stmt("ConsoleSessionDeleteExpired")
	sqlConsoleSessionEvict         = stmt("ConsoleSessionEvict")
	sqlConsoleSessionInsert        = stmt("ConsoleSessionInsert")
	sqlConsoleSessionByDigest      = stmt("ConsoleSessionByDigest")
	sqlConsoleSessionSeen          = stmt("ConsoleSessionSeen")
	sqlConsoleSessionEnd           = stmt("ConsoleSessionEnd")
	sqlConsoleSessionEndOthers     = stmt("ConsoleSessionEndOthers")
	sqlConsoleSessionEndPrincipal  = stmt("ConsoleSessionEndPrincipal")
)
