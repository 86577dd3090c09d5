-- Fragments that several statements share word for word (sqlload.go).

-- fragment: Schedulable
-- Whether the schedule row s belongs to a trigger a claim may take: its
-- project is active and its current revision is an enabled cron trigger
-- pinned to its task's current revision. A scalar subquery of primary-key
-- lookups, true or NULL (claim.sql says why it is not joins).
(SELECT true
   FROM qinglong.projects p
   JOIN qinglong.triggers tg ON tg.id = s.trigger_id AND tg.current_revision = s.trigger_revision
   JOIN qinglong.trigger_revisions tr ON tr.trigger_id = s.trigger_id AND tr.revision = s.trigger_revision
                                     AND tr.enabled AND tr.kind = 'qinglong/cron@v1'
   JOIN qinglong.tasks tk ON tk.id = tr.task_id AND tk.current_revision = tr.task_revision
  WHERE p.id = s.project_id AND p.status = 'active')

-- fragment: LedgerCompaction
-- Two CTEs of an admission write, after its "ledger" CTE (the entries it
-- inserted, with their per-trigger seq): every @ledger_keep-th entry of a
-- trigger folds the entries older than its newest @ledger_keep into their
-- per-reason totals ("compacted") and deletes them ("trimmed") — at most
-- @ledger_keep rows, once per @ledger_keep entries, so a trigger's ledger
-- stays bounded without a scan. The seq numbering (one per trigger, under
-- the schedule row's lock) makes every admission path compact at the same
-- entries.
compacted AS (
    INSERT INTO qinglong.occurrence_ledger_compacted AS c (trigger_id, reason, trigger_revision, first_scheduled_at_ms, last_scheduled_at_ms,
                                                         occurrence_count, at_least, recorded_at_ms)
    SELECT l.trigger_id, l.reason, max(l.trigger_revision), min(l.first_scheduled_at_ms), max(l.last_scheduled_at_ms),
           sum(l.occurrence_count)::bigint, bool_or(l.at_least), {{now_ms}}
      FROM ledger n
      JOIN qinglong.occurrence_ledger l ON l.trigger_id = n.trigger_id AND l.seq <= n.seq - @ledger_keep::bigint
     WHERE n.seq % @ledger_keep::bigint = 0
     GROUP BY l.trigger_id, l.reason
        ON CONFLICT (trigger_id, reason) DO UPDATE SET
           trigger_revision = greatest(c.trigger_revision, EXCLUDED.trigger_revision),
           first_scheduled_at_ms = least(c.first_scheduled_at_ms, EXCLUDED.first_scheduled_at_ms),
           last_scheduled_at_ms = greatest(c.last_scheduled_at_ms, EXCLUDED.last_scheduled_at_ms),
           occurrence_count = c.occurrence_count + EXCLUDED.occurrence_count,
           at_least = c.at_least OR EXCLUDED.at_least,
           recorded_at_ms = EXCLUDED.recorded_at_ms
    RETURNING 1
),
trimmed AS (
    DELETE FROM qinglong.occurrence_ledger l
     USING ledger n
     WHERE l.trigger_id = n.trigger_id AND n.seq % @ledger_keep::bigint = 0 AND l.seq <= n.seq - @ledger_keep::bigint
    RETURNING 1
),

-- fragment: LedgerNotifications
-- One CTE of an admission write, after its "ledger" CTE: the notifications
-- of the entries it inserted, written in the same transaction as the
-- entries themselves (the outbox's guarantee: no entry without its
-- notification, none for an entry that did not commit).
notified AS (
    -- The ledger entries' notifications: per entry, one row for every
    -- skipped rule of the trigger's project whose reasons (none: all)
    -- include the entry's and whose scope (no tasks and no triggers: the
    -- whole project) names the entry's trigger or its task, to the rule's
    -- channel as stored in the project's settings. A project without
    -- settings joins nothing; the task's name is read for the row and its
    -- rule's scope, and the trigger's, the project's and the task's
    -- display titles (each left out when it has none, as a Run's
    -- notification leaves it out) only for a row written: one probe of
    -- triggers' key and one of tasks'.
    INSERT INTO qinglong.notification_outbox (id, project_id, run_id, rule_key, subject, event, channel, payload, state, attempts,
                                              next_attempt_at_ms, created_at_ms, updated_at_ms)
    SELECT x.id, x.project_id, NULL, x.rule ->> 'key', 'skip:' || x.trigger_id || ':' || x.seq, 'skipped', x.channel,
           jsonb_build_object('id', x.id, 'event', 'skipped', 'project', x.project, 'trigger', x.trigger_name, 'task', x.task_name, 'reason', x.reason,
                              'occurrences', x.n,
                              'scheduledFor', to_char(to_timestamp(x.first_ms / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                              'lastScheduledFor', to_char(to_timestamp(x.last_ms / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
           || coalesce((SELECT jsonb_build_object('triggerTitle', tg.title) FROM qinglong.triggers tg WHERE tg.id = x.trigger_id AND tg.title <> ''), '{}')
           || CASE WHEN x.project_title <> '' THEN jsonb_build_object('projectTitle', x.project_title) ELSE '{}' END
           || coalesce((SELECT jsonb_build_object('taskTitle', tk.title) FROM qinglong.tasks tk WHERE tk.id = x.task_id AND tk.title <> ''), '{}'),
           'pending', 0, {{now_ms}}, {{now_ms}}, {{now_ms}}
      FROM (SELECT gen_random_uuid() AS id, p.id AS project_id, p.name AS project, p.title AS project_title, tr.name AS trigger_name, l.trigger_id, l.seq,
                   tr.task_id, (SELECT t.name FROM qinglong.tasks t WHERE t.id = tr.task_id) AS task_name,
                   l.reason, l.occurrence_count AS n, l.first_scheduled_at_ms AS first_ms, l.last_scheduled_at_ms AS last_ms, r.rule, c.channel
              FROM ledger l
              JOIN qinglong.trigger_revisions tr ON tr.trigger_id = l.trigger_id AND tr.revision = l.trigger_revision
              JOIN qinglong.projects p ON p.id = tr.project_id AND p.notifications IS NOT NULL
             CROSS JOIN LATERAL jsonb_array_elements(p.notifications::jsonb -> 'rules') r (rule)
             CROSS JOIN LATERAL (SELECT ch FROM jsonb_array_elements(p.notifications::jsonb -> 'channels') ch
                                  WHERE ch ->> 'name' = r.rule ->> 'channel') c (channel)
             WHERE r.rule ->> 'on' = 'skipped'
               AND (NOT (r.rule ? 'reasons') OR r.rule -> 'reasons' ? l.reason)
               AND ((NOT (r.rule ? 'tasks') AND NOT (r.rule ? 'triggers'))
                    OR r.rule -> 'triggers' ? tr.name
                    OR (r.rule ? 'tasks' AND r.rule -> 'tasks' ? (SELECT t.name FROM qinglong.tasks t WHERE t.id = tr.task_id)))) x
        ON CONFLICT (rule_key, subject) DO NOTHING
    RETURNING 1
),

-- fragment: SessionStateNow
-- A worker session's state as of now in database time, s being the
-- session's row and w its worker's: a live session whose lease passed is
-- expired even before the sweep marks it; a drained or revoked worker's
-- session says so. The pulls (SessionState) and the start and renewal
-- replies (LeaseFacts) answer it, so they never disagree.
CASE WHEN w.state = 'revoked' THEN 'revoked'
     WHEN s.state IN ('replaced', 'expired', 'ended') THEN s.state
     WHEN s.lease_expires_at_ms <= {{now_ms}} THEN 'expired'
     WHEN w.state = 'draining' OR s.state = 'draining' THEN 'draining'
     ELSE 'active' END
