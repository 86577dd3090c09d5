-- Set-based statements of a publishing transaction: each takes one array
-- per column (ids as text, cast here) and handles every item of a batch in
-- one round trip. Those with many arrays take named parameters.

-- name: TasksByNames
-- The current revisions of a batch's tasks, read through their heads.
SELECT r.task_id, r.project_id, r.revision, r.name, r.enabled, r.labels, r.command, r.content_digest, r.mutation_id, r.created_at_ms
  FROM qinglong.tasks t JOIN qinglong.task_revisions r ON r.task_id = t.id AND r.revision = t.current_revision
 WHERE t.project_id = $1 AND t.name = ANY($2::text[])

-- name: TriggersByNames
-- The current revisions of a batch's triggers, read through their heads.
SELECT r.trigger_id, r.project_id, r.task_id, r.revision, r.task_revision, r.task_content_digest, r.name, r.enabled,
       r.cron_expression, r.cron_timezone, r.misfire_policy, r.content_digest, r.mutation_id, r.created_at_ms,
       r.jitter_ms, r.start_at_ms, r.end_at_ms, r.catch_up_window_ms, r.overlap_policy
  FROM qinglong.triggers t JOIN qinglong.trigger_revisions r ON r.trigger_id = t.id AND r.revision = t.current_revision
 WHERE t.project_id = $1 AND t.name = ANY($2::text[])

-- name: TriggerNamesOfTasks
-- The names of a project's triggers bound to any of the tasks $2, so an
-- apply that changes a task carries the triggers its file leaves out to
-- the task's new revision. A trigger never moves to another task, so the
-- head's task_id is the task of every revision.
SELECT t.name
  FROM qinglong.triggers t
 WHERE t.project_id = $1 AND t.task_id = ANY($2::uuid[])
 ORDER BY t.name

-- name: TaskReplays
-- Mutation-id replay: the task revisions the (task id, mutation id) pairs
-- already wrote.
SELECT r.task_id, r.revision, r.content_digest, r.created_at_ms
  FROM qinglong.task_revisions r
  JOIN unnest($1::text[], $2::text[]) AS m(task_id, mutation_id) ON r.task_id = m.task_id::uuid AND r.mutation_id = m.mutation_id

-- name: TriggerReplays
-- Mutation-id replay: the trigger revisions the (trigger id, mutation id)
-- pairs already wrote.
SELECT r.trigger_id, r.revision, r.content_digest, r.created_at_ms
  FROM qinglong.trigger_revisions r
  JOIN unnest($1::text[], $2::text[]) AS m(trigger_id, mutation_id) ON r.trigger_id = m.trigger_id::uuid AND r.mutation_id = m.mutation_id

-- name: TaskHeadsLock
-- Expected-revision fence: the task heads are locked for the transaction
-- (NO KEY UPDATE, so a foreign-key check's KEY SHARE never waits on it;
-- see ProjectLock).
SELECT id, project_id, current_revision FROM qinglong.tasks WHERE id = ANY($1::text[]::uuid[]) FOR NO KEY UPDATE

-- name: TriggerHeadsLock
-- Expected-revision fence: the trigger heads are locked for the transaction
-- (NO KEY UPDATE, so a foreign-key check's KEY SHARE never waits on it;
-- see ProjectLock).
SELECT id, project_id, task_id, current_revision FROM qinglong.triggers WHERE id = ANY($1::text[]::uuid[]) FOR NO KEY UPDATE

-- name: TaskHeadsInsert
-- New task heads at revision 1; the unique (project, name) refuses a name
-- already taken.
INSERT INTO qinglong.tasks (id, project_id, name, current_revision, created_at_ms, updated_at_ms)
SELECT u.id::uuid, u.project_id::uuid, u.name, 1, $4, $4
  FROM unnest($1::text[], $2::text[], $3::text[]) AS u(id, project_id, name)

-- name: TaskHeadsAdvance
-- Expected-revision fence: a head moves only from the revision before the
-- new one, so the caller checks that every head advanced.
UPDATE qinglong.tasks t SET name = u.name, current_revision = u.revision, updated_at_ms = greatest(t.created_at_ms, $4)
  FROM unnest($1::text[], $2::text[], $3::bigint[]) AS u(id, name, revision)
 WHERE t.id = u.id::uuid AND t.current_revision = u.revision - 1

-- name: TaskRevisionsInsert
-- Immutable task revisions; the primary key (task, revision) refuses a
-- revision written twice.
INSERT INTO qinglong.task_revisions
       (task_id, revision, project_id, kind, name, enabled, labels, command, content_digest, mutation_id, created_at_ms)
SELECT u.task_id::uuid, u.revision, u.project_id::uuid, 'qinglong/command@v1', u.name, u.enabled, u.labels::jsonb, u.command::jsonb,
       u.content_digest, u.mutation_id, @created_at_ms
  FROM unnest(@task_ids::text[], @revisions::bigint[], @project_ids::text[], @names::text[], @enabled::boolean[],
              @labels::text[], @commands::text[], @content_digests::text[], @mutation_ids::text[])
       AS u(task_id, revision, project_id, name, enabled, labels, command, content_digest, mutation_id)

-- name: ExecutionsInsert
-- The immutable execution revisions of enabled task revisions, each with
-- its own digest, written in the task revision's transaction.
INSERT INTO qinglong.execution_revisions
       (task_id, task_revision, executor, id, project_id, task_content_digest, command, digest, created_at_ms)
SELECT u.task_id::uuid, u.task_revision, u.executor, u.id, u.project_id::uuid, u.task_content_digest, u.command::jsonb, u.digest, @created_at_ms
  FROM unnest(@task_ids::text[], @task_revisions::bigint[], @executors::text[], @ids::text[], @project_ids::text[],
              @task_content_digests::text[], @commands::text[], @digests::text[])
       AS u(task_id, task_revision, executor, id, project_id, task_content_digest, command, digest)

-- name: PinnedTaskRevisions
-- The pinned task revisions: each must exist, belong to the trigger's
-- project and carry the pinned digest; its enabled flag gates an enabled
-- trigger.
SELECT r.task_id, r.revision, r.project_id, r.content_digest, r.enabled
  FROM qinglong.task_revisions r
  JOIN unnest($1::text[], $2::bigint[]) AS u(task_id, revision) ON r.task_id = u.task_id::uuid AND r.revision = u.revision

-- name: TriggerHeadsInsert
-- New trigger heads at revision 1; the unique (project, name) refuses a
-- name already taken.
INSERT INTO qinglong.triggers (id, project_id, task_id, name, current_revision, created_at_ms, updated_at_ms)
SELECT u.id::uuid, u.project_id::uuid, u.task_id::uuid, u.name, 1, $5, $5
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS u(id, project_id, task_id, name)

-- name: TriggerHeadsAdvance
-- Expected-revision fence: a head moves only from the revision before the
-- new one, so the caller checks that every head advanced.
UPDATE qinglong.triggers t SET name = u.name, current_revision = u.revision, updated_at_ms = greatest(t.created_at_ms, $4)
  FROM unnest($1::text[], $2::text[], $3::bigint[]) AS u(id, name, revision)
 WHERE t.id = u.id::uuid AND t.current_revision = u.revision - 1

-- name: TriggerRevisionsInsert
-- Immutable trigger revisions, each pinning a task revision and its
-- digest; the primary key (trigger, revision) refuses one written twice.
INSERT INTO qinglong.trigger_revisions
       (trigger_id, revision, project_id, task_id, task_revision, task_content_digest, kind, name, enabled,
        cron_expression, cron_timezone, misfire_policy, content_digest, mutation_id, created_at_ms,
        jitter_ms, start_at_ms, end_at_ms, catch_up_window_ms, overlap_policy)
SELECT u.trigger_id::uuid, u.revision, u.project_id::uuid, u.task_id::uuid, u.task_revision, u.task_content_digest, 'qinglong/cron@v1',
       u.name, u.enabled, u.cron_expression, u.cron_timezone, u.misfire_policy, u.content_digest, u.mutation_id, @created_at_ms,
       u.jitter_ms, u.start_at_ms, u.end_at_ms, u.catch_up_window_ms, u.overlap_policy
  FROM unnest(@trigger_ids::text[], @revisions::bigint[], @project_ids::text[], @task_ids::text[], @task_revisions::bigint[],
              @task_content_digests::text[], @names::text[], @enabled::boolean[], @cron_expressions::text[], @cron_timezones::text[],
              @misfire_policies::text[], @content_digests::text[], @mutation_ids::text[],
              @jitter_ms::bigint[], @start_at_ms::bigint[], @end_at_ms::bigint[], @catch_up_window_ms::bigint[], @overlap_policies::text[])
       AS u(trigger_id, revision, project_id, task_id, task_revision, task_content_digest, name, enabled,
            cron_expression, cron_timezone, misfire_policy, content_digest, mutation_id,
            jitter_ms, start_at_ms, end_at_ms, catch_up_window_ms, overlap_policy)

-- name: SchedulesUpsert
-- Schedule reset fence, for every trigger of the batch: a new revision
-- clears cursor (its jitter back to 0) and claim and bumps state_version and claim_version, so no
-- ticket or claim taken before this transaction can ever commit. A
-- trigger new to a paused project starts paused with it (project_pauses),
-- its pause the project's; an existing row keeps its pause state,
-- whoever's it is.
INSERT INTO qinglong.trigger_schedules AS s
       (trigger_id, project_id, trigger_revision, next_fire_at_ms, last_scheduled_at_ms, state_version,
        claim_owner, claim_token, claim_version, claim_expires_at_ms, updated_at_ms,
        paused, paused_with_project, pause_note, paused_at_ms)
SELECT u.trigger_id::uuid, u.project_id::uuid, u.revision, NULL, NULL, 1, NULL, NULL, 0, NULL, $4,
       coalesce(pp.paused, false), coalesce(pp.paused, false), CASE WHEN pp.paused THEN pp.note END, CASE WHEN pp.paused THEN $4::bigint END
  FROM unnest($1::text[], $2::text[], $3::bigint[]) AS u(trigger_id, project_id, revision)
  LEFT JOIN qinglong.project_pauses pp ON pp.project_id = u.project_id::uuid
    ON CONFLICT (trigger_id) DO UPDATE SET
       trigger_revision = EXCLUDED.trigger_revision,
       next_fire_at_ms = NULL,
       due_offset_ms = 0,
       claim_owner = NULL, claim_token = NULL, claim_expires_at_ms = NULL,
       state_version = s.state_version + 1,
       claim_version = s.claim_version + 1,
       updated_at_ms = EXCLUDED.updated_at_ms

-- name: SupersededSchedules
-- What the batch's publishes replace, read under the schedule rows' locks
-- (taken in trigger order, before SchedulesUpsert resets them): each
-- revision's spec and its row's cursor and pause state, from which the
-- publish records the occurrences of that revision no decision reached.
SELECT s.trigger_id::text, s.trigger_revision, r.enabled, r.cron_expression, r.cron_timezone, r.misfire_policy, r.created_at_ms,
       r.jitter_ms, r.start_at_ms, r.end_at_ms, r.catch_up_window_ms, r.overlap_policy,
       s.next_fire_at_ms, s.paused, s.paused_at_ms, s.resumed_at_ms
  FROM qinglong.trigger_schedules s
  JOIN qinglong.trigger_revisions r ON r.trigger_id = s.trigger_id AND r.revision = s.trigger_revision
 WHERE s.trigger_id = ANY ($1::uuid[])
 ORDER BY s.trigger_id
   FOR UPDATE OF s

-- name: SupersededLedgerInsert
-- The ledger entries the batch's publishes owe the revisions they replace
-- (schedule.PassedAtPublish), numbered on from each trigger's last entry
-- under its schedule row's lock, with their notifications and the
-- compaction every admission write does.
WITH ledger AS (
    INSERT INTO qinglong.occurrence_ledger (trigger_id, seq, trigger_revision, reason, first_scheduled_at_ms, last_scheduled_at_ms,
                                            occurrence_count, at_least, recorded_at_ms)
    SELECT e.trigger_id, b.seq + e.ord, e.revision, e.reason, e.first_ms, e.last_ms, e.n, e.at_least, {{now_ms}}
      FROM (SELECT u.trigger_id::uuid AS trigger_id, u.revision, u.reason, u.first_ms, u.last_ms, u.n, u.at_least,
                   row_number() OVER (PARTITION BY u.trigger_id ORDER BY u.i) AS ord
              FROM unnest(@ledger_trigger::text[], @ledger_revision::bigint[], @ledger_reason::text[], @ledger_first::bigint[],
                          @ledger_last::bigint[], @ledger_count::bigint[], @ledger_at_least::boolean[])
                   WITH ORDINALITY AS u (trigger_id, revision, reason, first_ms, last_ms, n, at_least, i)) e
     CROSS JOIN LATERAL (SELECT coalesce(max(l.seq), 0) AS seq FROM qinglong.occurrence_ledger l WHERE l.trigger_id = e.trigger_id) b
    RETURNING trigger_id, seq, trigger_revision, reason, first_scheduled_at_ms, last_scheduled_at_ms, occurrence_count
),
{{LedgerNotifications}}
{{LedgerCompaction}}
written AS (SELECT count(*) AS n FROM ledger)
SELECT n FROM written

-- name: ReactivatedSchedules
-- What reactivating a project reads about each of its schedule rows that
-- its archive alone kept from being claimed (the claim's eligibility but
-- for the project's status and the pause: a paused row's occurrences
-- inside its pause are recorded as paused), under the rows' locks taken in
-- trigger order: the current revision's spec and the row's cursor and
-- pause state, from which the reactivation records what fell due while
-- the project was archived (schedule.PassedAtReactivation).
SELECT s.trigger_id::text, s.trigger_revision, r.cron_expression, r.cron_timezone, r.misfire_policy, r.created_at_ms,
       r.jitter_ms, r.start_at_ms, r.end_at_ms, r.catch_up_window_ms, r.overlap_policy,
       s.next_fire_at_ms, s.paused, s.paused_at_ms, s.resumed_at_ms
  FROM qinglong.trigger_schedules s
  JOIN qinglong.triggers t ON t.id = s.trigger_id AND t.current_revision = s.trigger_revision
  JOIN qinglong.trigger_revisions r ON r.trigger_id = s.trigger_id AND r.revision = s.trigger_revision
  JOIN qinglong.tasks k ON k.id = r.task_id AND k.current_revision = r.task_revision
 WHERE s.project_id = $1 AND r.enabled AND r.kind = 'qinglong/cron@v1'
 ORDER BY s.trigger_id
   FOR UPDATE OF s

-- name: SchedulesReactivate
-- Moves the locked rows of a reactivated project past what fell due while
-- it was archived (recorded in the same transaction): the new cursor and
-- its jitter (NULL: the row ended), the claim cleared and state_version
-- and claim_version bumped, so no ticket or claim taken before the archive
-- can commit after the reactivation.
UPDATE qinglong.trigger_schedules s
   SET next_fire_at_ms = u.cursor, due_offset_ms = u.due_offset,
       claim_owner = NULL, claim_token = NULL, claim_expires_at_ms = NULL,
       state_version = s.state_version + 1,
       claim_version = s.claim_version + 1,
       updated_at_ms = $4
  FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS u(trigger_id, cursor, due_offset)
 WHERE s.trigger_id = u.trigger_id::uuid

-- name: SchedulesPublishedPaused
-- The pauses the triggers new to a paused project started with
-- (SchedulesUpsert), for their audit records: the note each took, who
-- paused the project, and the pause's start. $1 the new trigger ids.
SELECT s.trigger_id::text, s.pause_note, pp.actor, s.paused_at_ms
  FROM qinglong.trigger_schedules s
  JOIN qinglong.project_pauses pp ON pp.project_id = s.project_id
 WHERE s.trigger_id = ANY($1::uuid[]) AND s.paused AND s.paused_with_project
