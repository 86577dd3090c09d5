-- Re-reads, under the write lock, everything a ticket was taken against:
-- project status, trigger head and revision, the pinned and the current task
-- revision, and the schedule row's revision, state version and cursor. Any
-- drift makes the commit raced (or failed, for altered content).
SELECT p.status, t.current_revision,
       r.project_id, r.task_id, r.task_revision, r.task_content_digest, r.name, r.enabled,
       r.expression, r.timezone, r.misfire_policy, r.content_digest, r.created_at_ms,
       k.current_revision, kr.content_digest,
       s.trigger_revision, s.state_version, s.next_fire_at_ms
FROM trigger_schedules s
JOIN projects p ON p.id = s.project_id
JOIN triggers t ON t.id = s.trigger_id
JOIN trigger_revisions r ON r.trigger_id = s.trigger_id AND r.revision = s.trigger_revision
JOIN tasks k ON k.id = r.task_id
JOIN task_revisions kr ON kr.task_id = k.id AND kr.revision = k.current_revision
WHERE s.trigger_id = ?
