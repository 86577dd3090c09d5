-- A finished Run's facts for its notifications, read in its finishing
-- transaction: the project's settings ('' without any), the names people
-- read, and the Run's last attempt (its number, its command's exit code
-- and its log file; 0, NULL and '' without one).
SELECT coalesce(p.notifications_json, ''), p.name, r.project_id, r.trigger_id,
       (SELECT tr.name FROM trigger_revisions tr WHERE tr.trigger_id = r.trigger_id AND tr.revision = r.trigger_revision),
       r.scheduled_for_ms,
       (SELECT t.name FROM task_revisions t WHERE t.task_id = r.task_id AND t.revision = r.task_revision),
       coalesce(a.number, 0), a.exit_code, coalesce(a.log_path, '')
  FROM runs r JOIN projects p ON p.id = r.project_id
  LEFT JOIN attempts a ON a.id = (SELECT id FROM attempts WHERE run_id = r.id ORDER BY number DESC LIMIT 1)
 WHERE r.id = ?
