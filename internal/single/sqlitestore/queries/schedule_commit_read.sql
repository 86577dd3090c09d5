-- Re-reads, under the write lock, everything a ticket was taken against:
-- project status, trigger head and the revision the schedule row names,
-- the task head and the task revision that revision pins, and the
-- schedule row's revision, state version, cursor and pause. The commit compares
-- them with the ticket in the order every adapter follows.
SELECT p.status, t.current_revision, t.task_id,
       r.project_id, r.task_id, r.task_revision, r.task_content_digest, r.name, r.enabled,
       r.expression, r.timezone, r.misfire_policy, r.content_digest, r.created_at_ms,
       r.jitter_ms, r.start_at_ms, r.end_at_ms, r.catch_up_window_ms, r.overlap_policy,
       k.current_revision, kr.project_id, kr.spec_json, kr.content_digest,
       s.trigger_revision, s.state_version, s.next_fire_at_ms, s.paused, s.paused_at_ms, s.resumed_at_ms
FROM trigger_schedules s
JOIN projects p ON p.id = s.project_id
JOIN triggers t ON t.id = s.trigger_id
JOIN trigger_revisions r ON r.trigger_id = s.trigger_id AND r.revision = s.trigger_revision
JOIN tasks k ON k.id = r.task_id
JOIN task_revisions kr ON kr.task_id = r.task_id AND kr.revision = r.task_revision
WHERE s.trigger_id = ?
