-- What reactivating a project reads, under the write lock, about each of
-- its schedule rows that its archive alone kept from being taken (the
-- take's eligibility but for the project's status and the pause: a paused
-- row's occurrences inside its pause are recorded as paused): the current
-- revision's spec and the row's cursor and pause state, from which the
-- reactivation records what fell due while the project was archived.
SELECT s.trigger_id, s.trigger_revision, r.expression, r.timezone, r.misfire_policy, r.created_at_ms,
       r.jitter_ms, r.start_at_ms, r.end_at_ms, r.catch_up_window_ms, r.overlap_policy,
       s.next_fire_at_ms, s.paused, s.paused_at_ms, s.resumed_at_ms, s.state_version
FROM trigger_schedules s
JOIN trigger_revisions r ON r.trigger_id = s.trigger_id AND r.revision = s.trigger_revision
JOIN triggers t ON t.id = s.trigger_id
JOIN tasks k ON k.id = r.task_id
WHERE s.project_id = ? AND s.enabled = 1 AND r.enabled = 1
  AND t.current_revision = s.trigger_revision AND k.current_revision = r.task_revision
ORDER BY s.trigger_id
