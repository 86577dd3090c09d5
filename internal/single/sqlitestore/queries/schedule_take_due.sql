-- A paused row is never taken (its last pause span rides on the ticket).
-- One page of due schedule rows (the cursor's jittered due time, cursor +
-- due_offset_ms, <= the observation time) in the claim order due time,
-- project, trigger, under the same eligibility as
-- the uninitialised page. The range bound on the due index keeps the read
-- O(page), not O(schedules), plus the rows it passes over because this host
-- could not read them and their wait (?, the observation time) has not
-- ended (schedule_recheck_later): a handful, each looked up once.
SELECT s.project_id, s.trigger_id, s.trigger_revision, r.content_digest, r.created_at_ms,
       r.expression, r.timezone, r.misfire_policy, r.jitter_ms, r.start_at_ms, r.end_at_ms, r.catch_up_window_ms, r.overlap_policy, r.task_id, r.task_revision, r.task_content_digest,
       s.next_fire_at_ms, s.last_scheduled_at_ms, s.state_version, s.paused_at_ms, s.resumed_at_ms
FROM trigger_schedules s
CROSS JOIN trigger_revisions r ON r.trigger_id = s.trigger_id AND r.revision = s.trigger_revision
CROSS JOIN triggers t ON t.id = s.trigger_id
CROSS JOIN projects p ON p.id = s.project_id
CROSS JOIN tasks k ON k.id = r.task_id
WHERE s.enabled = 1 AND s.paused = 0 AND (s.next_fire_at_ms IS NULL OR s.due_offset_ms IS NOT NULL) AND s.next_fire_at_ms + s.due_offset_ms <= ?
  AND r.enabled = 1 AND t.current_revision = s.trigger_revision
  AND p.status = 'active' AND k.current_revision = r.task_revision
  AND (s.recheck_at_ms IS NULL OR s.recheck_at_ms <= ? OR s.recheck_state_version <> s.state_version)
ORDER BY s.next_fire_at_ms + s.due_offset_ms, s.project_id, s.trigger_id
LIMIT ?
