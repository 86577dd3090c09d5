-- One page of the audit trail, newest first: the trail's own records
-- merged with the trigger schedule's (pause, resume, enable, disable),
-- each keyed so that two records of one millisecond keep one order and a
-- page resumes after (?5, ?6), the previous page's last record, whatever
-- was written since. ?1 since (0: all), ?2 actor (exact, or with any
-- address after '@'), ?3 action, ?4 project, ?7 a JSON array of the only
-- projects to show (NULL: every record), ?8 the rows to read.
-- Each table gives its first ?8 records in the listing's order, read
-- backwards along its time index (audit_log_at, trigger_schedule_audit_at
-- with the rowid) from the cursor's millisecond, and only those ?8 + ?8
-- are merged and sorted: a page costs its own rows and the records the
-- filters pass over, never the tables' size. Within one millisecond a
-- table's index order is its key's order ('a' and the text id; 't' and
-- the id zero-padded), so each table's first ?8 are the page's
-- candidates from it.
SELECT key, at_ms, actor, action, object_kind, object_id, object_name, project, note FROM (
  SELECT * FROM (
    SELECT 'a' || l.id AS key, l.at_ms, l.actor, l.action, l.object_kind, l.object_id, l.object_name, l.project, l.note
    FROM audit_log l
    WHERE l.at_ms >= ?1 AND l.at_ms <= coalesce(?5, 9223372036854775807)
      AND (?5 IS NULL OR l.at_ms < ?5 OR 'a' || l.id < ?6)
      AND (?2 = '' OR l.actor = ?2 OR substr(l.actor, 1, length(?2) + 1) = ?2 || '@')
      AND (?3 = '' OR l.action = ?3)
      AND (?4 = '' OR l.project = ?4)
      AND (?7 IS NULL OR l.project IN (SELECT value FROM json_each(?7)))
    ORDER BY l.at_ms DESC, l.id DESC
    LIMIT ?8)
  UNION ALL
  SELECT * FROM (
    SELECT printf('t%020d', a.id) AS key, a.at_ms, a.actor,
           CASE a.action WHEN 'pause' THEN 'trigger.paused' WHEN 'resume' THEN 'trigger.resumed' WHEN 'enable' THEN 'trigger.enabled' ELSE 'trigger.disabled' END AS action,
           'trigger' AS object_kind, a.trigger_id AS object_id, t.name AS object_name, p.name AS project, coalesce(a.note, '') AS note
    FROM trigger_schedule_audit a JOIN triggers t ON t.id = a.trigger_id JOIN projects p ON p.id = t.project_id
    WHERE a.at_ms >= ?1 AND a.at_ms <= coalesce(?5, 9223372036854775807)
      AND (?5 IS NULL OR a.at_ms < ?5 OR printf('t%020d', a.id) < ?6)
      AND (?2 = '' OR a.actor = ?2 OR substr(a.actor, 1, length(?2) + 1) = ?2 || '@')
      AND (?3 = '' OR CASE a.action WHEN 'pause' THEN 'trigger.paused' WHEN 'resume' THEN 'trigger.resumed' WHEN 'enable' THEN 'trigger.enabled' ELSE 'trigger.disabled' END = ?3)
      AND (?4 = '' OR p.name = ?4)
      AND (?7 IS NULL OR p.name IN (SELECT value FROM json_each(?7)))
    ORDER BY a.at_ms DESC, a.id DESC
    LIMIT ?8)
)
ORDER BY at_ms DESC, key DESC
LIMIT ?8
