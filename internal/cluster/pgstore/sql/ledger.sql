-- The occurrence ledger's reads, and pausing and resuming a trigger's
-- schedule (ledger.go; docs/architecture.md, "The occurrence ledger").
-- The ledger itself is written by the admission statements
-- (commit_write.sql, commit_page.sql).

-- name: SchedulePauseState
-- A trigger's pause state, locking its schedule row for the pause or
-- resume that follows in the same transaction, and whether this role may
-- read the audit trail, where the pause in force has its own time
-- (SchedulePauseStarted).
SELECT paused, pause_note, paused_at_ms, resumed_at_ms,
       has_table_privilege('qinglong.trigger_schedule_audit', 'SELECT'), paused_with_project
  FROM qinglong.trigger_schedules
 WHERE trigger_id = $1
   FOR UPDATE

-- name: SchedulePause
-- Pauses a schedule row (admin). The claim is cleared and state_version
-- and claim_version are bumped, so no claim or ticket taken before can
-- ever commit; the eligibility refresh that follows in the transaction
-- clears `schedulable`. A pause that follows a resume no decision has yet
-- moved the cursor past keeps the earlier pause's start, so the
-- occurrences of both stay recorded as paused; it returns the pause's own
-- time, which its audit record keeps (SchedulePauseStarted). Touches
-- nothing when already paused. $1 trigger id, $2 note (NULL for none),
-- $3 the pause's time (NULL: now; a project's pause gives all its
-- triggers the one time its record keeps; a pause handed over from
-- another database its start there), never later than now.
UPDATE qinglong.trigger_schedules s
   SET paused = true,
       pause_note = $2,
       paused_at_ms = CASE WHEN s.resumed_at_ms IS NOT NULL AND s.next_fire_at_ms < s.resumed_at_ms
                           THEN s.paused_at_ms ELSE n.ms END,
       resumed_at_ms = NULL,
       claim_owner = NULL, claim_token = NULL, claim_expires_at_ms = NULL,
       state_version = s.state_version + 1,
       claim_version = s.claim_version + 1,
       updated_at_ms = greatest(s.updated_at_ms, n.ms)
  FROM (SELECT least($3::bigint, {{now_ms}}) AS ms) n
 WHERE s.trigger_id = $1 AND NOT s.paused
RETURNING n.ms

-- name: ScheduleResume
-- Resumes a paused schedule row (admin); its pause span stays for the next
-- decision, which records what fell due in it as paused. state_version is
-- bumped like every writer's; the eligibility refresh that follows sets
-- `schedulable` again. Touches nothing when not paused; ends a project's
-- pause of the row as well. $1 trigger id, $2 the resume's time (NULL:
-- now; a project's resume gives all its triggers one time).
UPDATE qinglong.trigger_schedules s
   SET paused = false,
       paused_with_project = false,
       resumed_at_ms = greatest(n.ms, s.paused_at_ms),
       state_version = s.state_version + 1,
       updated_at_ms = greatest(s.updated_at_ms, n.ms)
  FROM (SELECT coalesce($2::bigint, {{now_ms}}) AS ms) n
 WHERE s.trigger_id = $1 AND s.paused
RETURNING s.resumed_at_ms

-- name: ScheduleAuditInsert
-- The audit record of a pause or resume, in its transaction, at database
-- time: a pause's or resume's the time its statement returned, so that a
-- pause's record holds its own start (SchedulePauseStarted). $1 id, $2
-- trigger id, $3 action, $4 actor, $5 note (NULL for none), $6 time (NULL:
-- now).
INSERT INTO qinglong.trigger_schedule_audit (id, trigger_id, action, actor, note, at_ms)
VALUES ($1, $2, $3, $4, $5, coalesce($6::bigint, {{now_ms}}))

-- name: SchedulePauseStarted
-- When the pause in force began: its audit record's time. paused_at_ms
-- keeps an earlier pause's start when a pause follows a resume no
-- decision has passed (SchedulePause), for the ledger, but that is not
-- when this pause began. A pause and its record are written in one
-- transaction, so a paused row's newest pause record is its pause's: the
-- newest written, not the latest in time, as a pause adopted from a
-- handed-over database carries the source's start, earlier than records
-- written before it. A record's id is a version 7 UUID minted as it is
-- written (ScheduleAuditInsert's callers), and a trigger's records are
-- written under its schedule row's lock one after another, so the
-- greatest id is the newest written, as the embedded database's integer
-- id is. $1 trigger id.
SELECT at_ms
  FROM qinglong.trigger_schedule_audit
 WHERE trigger_id = $1 AND action = 'pause'
 ORDER BY id DESC
 LIMIT 1

-- name: TriggerDetail
-- One trigger's current revision, schedule state and pause state for
-- `ql triggers show`, with the database clock, whether its project is
-- archived and whether this role may read the audit trail (a runtime role
-- whose grants were not re-applied since it gained SELECT on it may not:
-- reading it would fail the whole snapshot).
SELECT p.id, p.name, tg.id, tr.name, tr.revision, tr.enabled, tr.cron_expression, tr.cron_timezone, tr.misfire_policy,
       tr.jitter_ms, tr.start_at_ms, tr.end_at_ms, tr.catch_up_window_ms, tr.overlap_policy,
       tr.task_id, tk.name, tr.task_revision, s.next_fire_at_ms, s.next_fire_at_ms + s.due_offset_ms, s.last_scheduled_at_ms,
       s.state_version, s.claim_owner, s.claim_expires_at_ms,
       s.paused, s.pause_note, s.paused_at_ms, {{now_ms}}, p.status = 'archived',
       has_table_privilege('qinglong.trigger_schedule_audit', 'SELECT'), s.paused_with_project, tg.title, tk.title, p.title
  FROM qinglong.triggers tg
  JOIN qinglong.projects p ON p.id = tg.project_id
  JOIN qinglong.trigger_revisions tr ON tr.trigger_id = tg.id AND tr.revision = tg.current_revision
  JOIN qinglong.tasks tk ON tk.id = tr.task_id
  JOIN qinglong.trigger_schedules s ON s.trigger_id = tg.id
 WHERE tg.id = $1

-- name: LedgerOfTrigger
-- A trigger's newest ledger entries, newest first, then its compacted
-- totals (the oldest history); reads the primary keys backwards and stops
-- at the limit. $1 trigger id, $2 limit.
-- The ledger is append-only, so an occurrence it passed over stays passed
-- over when a backfill later gives it a Run; the last column says how many
-- Runs with the clock's key (a backfill's: the clock admitted none there)
-- an entry's stretch has, read through the trigger's Runs as a backfill
-- reads them (RunsCronScheduledIn). A compacted total spans stretches
-- apart, with the clock's own Runs between them, so it says none.
SELECT trigger_revision, reason, first_scheduled_at_ms, last_scheduled_at_ms, occurrence_count, at_least, recorded_at_ms, compacted,
       CASE WHEN compacted THEN 0 ELSE (
         SELECT count(*) FROM qinglong.runs r
          WHERE r.trigger_id = $1 AND r.scheduled_for_ms BETWEEN e.first_scheduled_at_ms AND e.last_scheduled_at_ms
            AND r.idempotency_key LIKE 'ql3:cron:v1:%') END
  FROM (SELECT 0 AS part, seq, trigger_revision, reason, first_scheduled_at_ms, last_scheduled_at_ms, occurrence_count, at_least,
               recorded_at_ms, false AS compacted
          FROM qinglong.occurrence_ledger
         WHERE trigger_id = $1
        UNION ALL
        SELECT 1, 0, trigger_revision, reason, first_scheduled_at_ms, last_scheduled_at_ms, occurrence_count, at_least,
               recorded_at_ms, true
          FROM qinglong.occurrence_ledger_compacted
         WHERE trigger_id = $1) e
 ORDER BY part, seq DESC, first_scheduled_at_ms DESC
 LIMIT $2

-- name: ScheduleAuditOfTrigger
-- A trigger's newest audit records, newest written first (by id, as
-- SchedulePauseStarted reads them), for `ql triggers show`, as the
-- embedded database lists them: a pause adopted with an earlier start
-- than the records before it is still the newest. $1 trigger id, $2
-- limit.
SELECT action, actor, note, at_ms
  FROM qinglong.trigger_schedule_audit
 WHERE trigger_id = $1
 ORDER BY id DESC
 LIMIT $2
