-- A project's deletion (project_delete.go), as the maintenance role, in
-- one transaction: the project row is locked first, so a publish (which
-- updates it), an admission (whose Run's key to it takes a share lock) and
-- a second deletion wait for the deletion's commit, and find the project
-- gone.

-- name: ProjectDeleteLock
-- The project $1 names (its id, or its name; an id wins over a name spelt
-- as another project's id), locked, and whether it is archived, which a
-- deletion requires.
SELECT p.id::text, p.name, p.status = 'archived'
  FROM qinglong.projects p
 WHERE p.id::text = $1 OR p.name = $1
 ORDER BY p.id::text = $1 DESC
 LIMIT 1
   FOR UPDATE

-- name: ProjectDeleteCounts
-- What deleting project $1 removes: tasks, triggers, Runs, attempts,
-- events, logs (attempts whose log is still held: a first chunk) and their
-- bytes, ledger rows (entries and compacted totals), pause records of its
-- triggers, and its notifications.
SELECT (SELECT count(*) FROM qinglong.tasks WHERE project_id = $1::uuid),
       (SELECT count(*) FROM qinglong.triggers WHERE project_id = $1::uuid),
       (SELECT count(*) FROM qinglong.runs WHERE project_id = $1::uuid),
       (SELECT count(*) FROM qinglong.attempts a JOIN qinglong.runs r ON r.id = a.run_id WHERE r.project_id = $1::uuid),
       (SELECT count(*) FROM qinglong.run_events e JOIN qinglong.runs r ON r.id = e.run_id WHERE r.project_id = $1::uuid),
       (SELECT count(*) FROM qinglong.attempts a JOIN qinglong.runs r ON r.id = a.run_id
         WHERE r.project_id = $1::uuid AND EXISTS (SELECT 1 FROM qinglong.run_log_chunks c WHERE c.attempt_id = a.id AND c.log_offset = 0)),
       (SELECT coalesce(sum(a.log_bytes), 0)::bigint FROM qinglong.attempts a JOIN qinglong.runs r ON r.id = a.run_id
         WHERE r.project_id = $1::uuid AND EXISTS (SELECT 1 FROM qinglong.run_log_chunks c WHERE c.attempt_id = a.id AND c.log_offset = 0)),
       (SELECT count(*) FROM qinglong.occurrence_ledger WHERE trigger_id IN (SELECT id FROM qinglong.triggers WHERE project_id = $1::uuid))
         + (SELECT count(*) FROM qinglong.occurrence_ledger_compacted WHERE trigger_id IN (SELECT id FROM qinglong.triggers WHERE project_id = $1::uuid)),
       (SELECT count(*) FROM qinglong.trigger_schedule_audit WHERE trigger_id IN (SELECT id FROM qinglong.triggers WHERE project_id = $1::uuid)),
       (SELECT count(*) FROM qinglong.notification_outbox WHERE project_id = $1::uuid)

-- name: ProjectDeleteUnfinished
-- The project's Runs that have not ended, or have an attempt still open or
-- leased, which a deletion refuses to lose.
SELECT count(*)
  FROM qinglong.runs r
 WHERE r.project_id = $1::uuid
   AND (r.state NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'lost')
        OR EXISTS (SELECT 1 FROM qinglong.attempts a
                    WHERE a.run_id = r.id AND (a.state IN ('claimed', 'starting', 'running') OR a.lease_expires_at_ms IS NOT NULL)))

-- name: ProjectDeleteTokens
-- The live API tokens (neither revoked nor expired by the database clock)
-- bound to the project named $1. A deletion refuses them: the freed name
-- would give a token a project created later. The maintenance role reads
-- these columns only, never a digest.
SELECT name
  FROM qinglong.api_tokens
 WHERE revoked_at_ms IS NULL AND (expires_at_ms IS NULL OR expires_at_ms > {{now_ms}})
   AND $1::text = ANY (projects)
 ORDER BY name

-- name: ProjectDeleteRuns
-- One batch of the project's Runs, at most $2, with their attempts, the
-- attempts' log chunks and their events; the deletion checked under the
-- project's lock that every one has ended. Returns the Runs, attempts and
-- events deleted. Every data-modifying part runs to completion whether or
-- not the final SELECT reads it.
WITH doomed AS (
    SELECT r.id FROM qinglong.runs r WHERE r.project_id = $1::uuid LIMIT $2 FOR UPDATE OF r
),
gone_attempts AS (
    DELETE FROM qinglong.attempts a USING doomed d WHERE a.run_id = d.id
    RETURNING a.id
),
gone_chunks AS (
    DELETE FROM qinglong.run_log_chunks c USING gone_attempts g WHERE c.attempt_id = g.id
    RETURNING 1
),
gone_events AS (
    DELETE FROM qinglong.run_events e USING doomed d WHERE e.run_id = d.id
    RETURNING 1
),
gone_runs AS (
    DELETE FROM qinglong.runs r USING doomed d WHERE r.id = d.id
    RETURNING 1
)
SELECT (SELECT count(*) FROM gone_runs), (SELECT count(*) FROM gone_attempts), (SELECT count(*) FROM gone_events),
       (SELECT count(*) FROM gone_chunks)

-- name: ProjectDeleteDefinitions
-- The project $1 and its definitions, once its Runs are gone: ledger,
-- compacted totals, pause records, schedule rows, notifications, pause
-- record, revisions, triggers, tasks and the project row. One statement:
-- the foreign keys are checked at its end, when every row naming another
-- is gone with it.
WITH trig AS (
    SELECT id FROM qinglong.triggers WHERE project_id = $1::uuid
),
ledger AS (
    DELETE FROM qinglong.occurrence_ledger l USING trig t WHERE l.trigger_id = t.id RETURNING 1
),
compacted AS (
    DELETE FROM qinglong.occurrence_ledger_compacted l USING trig t WHERE l.trigger_id = t.id RETURNING 1
),
audit AS (
    DELETE FROM qinglong.trigger_schedule_audit a USING trig t WHERE a.trigger_id = t.id RETURNING 1
),
schedules AS (
    DELETE FROM qinglong.trigger_schedules WHERE project_id = $1::uuid RETURNING 1
),
outbox AS (
    DELETE FROM qinglong.notification_outbox WHERE project_id = $1::uuid RETURNING 1
),
pause AS (
    DELETE FROM qinglong.project_pauses WHERE project_id = $1::uuid RETURNING 1
),
trigger_revs AS (
    DELETE FROM qinglong.trigger_revisions r USING trig t WHERE r.trigger_id = t.id RETURNING 1
),
gone_triggers AS (
    DELETE FROM qinglong.triggers WHERE project_id = $1::uuid RETURNING 1
),
executions AS (
    DELETE FROM qinglong.execution_revisions WHERE project_id = $1::uuid RETURNING 1
),
task_revs AS (
    DELETE FROM qinglong.task_revisions WHERE project_id = $1::uuid RETURNING 1
),
gone_tasks AS (
    DELETE FROM qinglong.tasks WHERE project_id = $1::uuid RETURNING 1
),
gone_project AS (
    DELETE FROM qinglong.projects WHERE id = $1::uuid RETURNING 1
)
SELECT (SELECT count(*) FROM ledger) + (SELECT count(*) FROM compacted) + (SELECT count(*) FROM audit) + (SELECT count(*) FROM schedules)
     + (SELECT count(*) FROM outbox) + (SELECT count(*) FROM pause) + (SELECT count(*) FROM trigger_revs) + (SELECT count(*) FROM gone_triggers)
     + (SELECT count(*) FROM executions) + (SELECT count(*) FROM task_revs) + (SELECT count(*) FROM gone_tasks) + (SELECT count(*) FROM gone_project)
