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
-- Each table gives its first $8 records in the listing's order, read
-- backwards along its time index (audit_log_at_idx,
-- trigger_schedule_audit_at_idx) from the cursor's millisecond, and only
-- those $8 + $8 are merged and sorted: a page costs its own rows and the
-- records the filters pass over, never the tables' size. Within one
-- millisecond a table's index order is its key's order (the uuid's text
-- is its bytes in hex), so each table's first $8 are the page's
-- candidates from it.
SELECT key, at_ms, actor, action, object_kind, object_id, object_name, project, note FROM (
  (SELECT 'a' || l.id::text AS key, l.at_ms, l.actor, l.action, l.object_kind, l.object_id, l.object_name, l.project, l.note
     FROM qinglong.audit_log l
    WHERE l.at_ms >= $1 AND l.at_ms <= coalesce($5::bigint, 9223372036854775807)
      AND ($5::bigint IS NULL OR l.at_ms < $5::bigint OR ('a' || l.id::text) COLLATE "C" < $6::text COLLATE "C")
      AND ($2 = '' OR l.actor = $2 OR left(l.actor, length($2) + 1) = $2 || '@')
      AND ($3 = '' OR l.action = $3)
      AND ($4 = '' OR l.project = $4)
      AND ($7::text[] IS NULL OR l.project = ANY ($7::text[]))
    ORDER BY l.at_ms DESC, l.id DESC
    LIMIT $8)
  UNION ALL
  (SELECT 't' || a.id::text, a.at_ms, a.actor, x.action, 'trigger', a.trigger_id::text, t.name, p.name, coalesce(a.note, '')
     FROM qinglong.trigger_schedule_audit a
     CROSS JOIN LATERAL (SELECT CASE a.action WHEN 'pause' THEN 'trigger.paused' WHEN 'resume' THEN 'trigger.resumed'
                                              WHEN 'enable' THEN 'trigger.enabled' ELSE 'trigger.disabled' END AS action) x
     JOIN qinglong.triggers t ON t.id = a.trigger_id
     JOIN qinglong.projects p ON p.id = t.project_id
    WHERE a.at_ms >= $1 AND a.at_ms <= coalesce($5::bigint, 9223372036854775807)
      AND ($5::bigint IS NULL OR a.at_ms < $5::bigint OR ('t' || a.id::text) COLLATE "C" < $6::text COLLATE "C")
      AND ($2 = '' OR a.actor = $2 OR left(a.actor, length($2) + 1) = $2 || '@')
      AND ($3 = '' OR x.action = $3)
      AND ($4 = '' OR p.name = $4)
      AND ($7::text[] IS NULL OR p.name = ANY ($7::text[]))
    ORDER BY a.at_ms DESC, a.id DESC
    LIMIT $8)
) r
ORDER BY at_ms DESC, key COLLATE "C" DESC
LIMIT $8

-- name: UserNameOf
-- The name of the account of an id, read in the transaction of a user's
-- own password change for its audit record.
SELECT name FROM qinglong.console_users WHERE id = $1
