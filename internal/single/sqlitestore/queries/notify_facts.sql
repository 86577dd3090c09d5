-- A finished Run's facts for its notifications, read in its finishing
-- transaction: the project's settings ('' without any), the names
-- people read and the trigger's and the project's display titles now (''
-- none).
SELECT coalesce(p.notifications_json, ''), p.name, r.project_id, r.trigger_id,
       (SELECT tr.name FROM trigger_revisions tr WHERE tr.trigger_id = r.trigger_id AND tr.revision = r.trigger_revision),
       r.scheduled_for_ms, coalesce((SELECT t.title FROM triggers t WHERE t.id = r.trigger_id), ''), p.title
  FROM runs r JOIN projects p ON p.id = r.project_id
 WHERE r.id = ?
