-- One page of the audit trail, newest first: the trail's own records
-- merged with the trigger schedule's (pause, resume, enable, disable),
-- each keyed so that two records of one millisecond keep one order and a
-- page resumes after (?5, ?6), the previous page's last record, whatever
-- was written since. ?1 since (0: all), ?2 actor (exact, or with any
-- address after '@'), ?3 action, ?4 project, ?7 a JSON array of the only
-- projects to show (NULL: every record), ?8 the rows to read.
SELECT key, at_ms, actor, action, object_kind, object_id, object_name, project, note FROM (
  SELECT 'a' || id AS key, at_ms, actor, action, object_kind, object_id, object_name, project, note FROM audit_log
  UNION ALL
  SELECT printf('t%020d', a.id), a.at_ms, a.actor,
         CASE a.action WHEN 'pause' THEN 'trigger.paused' WHEN 'resume' THEN 'trigger.resumed' WHEN 'enable' THEN 'trigger.enabled' ELSE 'trigger.disabled' END,
         'trigger', a.trigger_id, t.name, p.name, coalesce(a.note, '')
    FROM trigger_schedule_audit a JOIN triggers t ON t.id = a.trigger_id JOIN projects p ON p.id = t.project_id
)
WHERE at_ms >= ?1
  AND (?2 = '' OR actor = ?2 OR substr(actor, 1, length(?2) + 1) = ?2 || '@')
  AND (?3 = '' OR action = ?3)
  AND (?4 = '' OR project = ?4)
  AND (?5 IS NULL OR at_ms < ?5 OR (at_ms = ?5 AND key < ?6))
  AND (?7 IS NULL OR project IN (SELECT value FROM json_each(?7)))
ORDER BY at_ms DESC, key DESC
LIMIT ?8
