-- Per-trigger monitoring (/metrics with --metrics-per-trigger): the first
-- ?1 enabled triggers of active projects by project then trigger name,
-- each with its newest Run's creation (the last entry of runs_trigger,
-- ids being UUIDv7 in admission order), its latest succeeded Run's end
-- (the last entry of the partial index runs_trigger_succeeded) and the
-- instant its schedule's next occurrence falls due (its time plus jitter)
-- while a take could take it: not paused, not ended, its revision current
-- and pinned to its task's current revision, as schedule_take_due; whether
-- it is paused (on its own or with its project: the schedule's primary
-- key, 0 before its first initialisation); beside them, how many such
-- triggers there are, counted up to ?2. The page is
-- materialised first, so the Runs are probed for at most ?1 triggers: the
-- read walks the catalogue (which does not grow with history) and never
-- scans runs.
WITH eligible AS (
  SELECT p.name AS project, t.name AS trigger, t.id AS trigger_id, t.current_revision AS revision
  FROM projects p
  CROSS JOIN triggers t ON t.project_id = p.id
  CROSS JOIN trigger_revisions r ON r.trigger_id = t.id AND r.revision = t.current_revision
  WHERE p.status = 'active' AND r.enabled = 1
),
page AS MATERIALIZED (
  SELECT project, trigger, trigger_id, revision FROM eligible ORDER BY project, trigger LIMIT ?1
)
SELECT g.project, g.trigger,
       (SELECT l.created_at_ms FROM runs l WHERE l.trigger_id = g.trigger_id ORDER BY l.id DESC LIMIT 1),
       (SELECT s.finished_at_ms FROM runs s WHERE s.trigger_id = g.trigger_id AND s.state = 'succeeded' AND s.finished_at_ms IS NOT NULL ORDER BY s.finished_at_ms DESC LIMIT 1),
       (SELECT c.next_fire_at_ms + c.due_offset_ms FROM trigger_schedules c
         CROSS JOIN trigger_revisions r ON r.trigger_id = c.trigger_id AND r.revision = c.trigger_revision
         CROSS JOIN tasks k ON k.id = r.task_id
         WHERE c.trigger_id = g.trigger_id AND c.trigger_revision = g.revision AND c.enabled = 1 AND c.paused = 0
           AND c.due_offset_ms IS NOT NULL AND k.current_revision = r.task_revision),
       coalesce((SELECT ps.paused FROM trigger_schedules ps WHERE ps.trigger_id = g.trigger_id), 0),
       (SELECT count(*) FROM (SELECT 1 FROM eligible LIMIT ?2))
FROM page g
ORDER BY g.project, g.trigger
