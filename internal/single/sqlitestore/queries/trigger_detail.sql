-- One trigger's status and pause state for `ql triggers show`; the
-- project's status says whether it is archived. The pause's time shown is
-- the newest pause's audit record's, the pause in force while the row is
-- paused: paused_at_ms keeps an earlier pause's start when a pause follows
-- a resume no decision has passed (schedule_pause.sql), so the ledger
-- covers both, but that is not when this pause began. A row whose audit
-- holds no pause shows paused_at_ms.
SELECT p.id, p.name, t.id, r.name, r.revision, r.enabled, r.expression, r.timezone, r.misfire_policy,
       r.jitter_ms, r.start_at_ms, r.end_at_ms, r.catch_up_window_ms, r.overlap_policy,
       r.task_id, kr.name, r.task_revision, s.next_fire_at_ms, s.next_fire_at_ms + s.due_offset_ms, s.last_scheduled_at_ms,
       coalesce(s.state_version, 0),
       coalesce(s.paused, 0), s.pause_note,
       coalesce((SELECT a.at_ms FROM trigger_schedule_audit a WHERE a.trigger_id = t.id AND a.action = 'pause' ORDER BY a.id DESC LIMIT 1), s.paused_at_ms),
       p.status = 'archived', coalesce(s.paused_with_project, 0), t.title, kh.title, p.title
FROM triggers t
JOIN trigger_revisions r ON r.trigger_id = t.id AND r.revision = t.current_revision
JOIN projects p ON p.id = t.project_id
JOIN tasks kh ON kh.id = t.task_id
JOIN task_revisions kr ON kr.task_id = r.task_id AND kr.revision = r.task_revision
LEFT JOIN trigger_schedules s ON s.trigger_id = t.id
WHERE t.id = ?
