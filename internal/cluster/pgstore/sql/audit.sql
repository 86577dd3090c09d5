-- The audit trail (audit.go).

-- name: AuditInsert
-- Appends one record in the transaction of the change it records, at the
-- time that change took ($2) or else the database's clock now: the change
-- and its record commit together or not at all.
INSERT INTO qinglong.audit_log (id, at_ms, actor, action, object_kind, object_id, object_name, project, note)
VALUES ($1, coalesce($2::bigint, {{now_ms}}), $3, $4, $5, $6, $7, $8, $9)

-- name: AuditList
-- One page of the trail, newest first: its own records merged with the
-- trigger schedule's (pause, resume, enable, disable), each keyed so that
-- two records of one millisecond keep one order and a page resumes after
-- ($5, $6), the previous page's last record, whatever was written since.
-- $1 since, $2 actor (exact, or with any address after '@'), $3 action,
-- $4 project ('' every one), $7 the only projects to show (NULL: every
-- record), $8 the rows to read.
SELECT key, at_ms, actor, action, object_kind, object_id, object_name, project, note FROM (
  SELECT 'a' || id::text AS key, at_ms, actor, action, object_kind, object_id, object_name, project, note FROM qinglong.audit_log
  UNION ALL
  SELECT 't' || a.id::text, a.at_ms, a.actor,
         CASE a.action WHEN 'pause' THEN 'trigger.paused' WHEN 'resume' THEN 'trigger.resumed' WHEN 'enable' THEN 'trigger.enabled' ELSE 'trigger.disabled' END,
         'trigger', a.trigger_id::text, t.name, p.name, coalesce(a.note, '')
    FROM qinglong.trigger_schedule_audit a
    JOIN qinglong.triggers t ON t.id = a.trigger_id
    JOIN qinglong.projects p ON p.id = t.project_id
) r
WHERE at_ms >= $1
  AND ($2 = '' OR actor = $2 OR left(actor, length($2) + 1) = $2 || '@')
  AND ($3 = '' OR action = $3)
  AND ($4 = '' OR project = $4)
  AND ($5::bigint IS NULL OR at_ms < $5::bigint OR (at_ms = $5::bigint AND key COLLATE "C" < $6::text COLLATE "C"))
  AND ($7::text[] IS NULL OR project = ANY ($7::text[]))
ORDER BY at_ms DESC, key COLLATE "C" DESC
LIMIT $8

-- name: UserNameOf
-- The name of the account of an id, read in the transaction of a user's
-- own password change for its audit record.
SELECT name FROM qinglong.console_users WHERE id = $1
