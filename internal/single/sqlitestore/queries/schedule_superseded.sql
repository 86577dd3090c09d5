-- What a publish reads, under the write lock, about the revision it
-- replaces: its spec, and the schedule row's cursor and pause state, from
-- which it records the occurrences of that revision no decision reached.
SELECT s.trigger_revision, r.enabled, r.expression, r.timezone, r.misfire_policy, r.created_at_ms,
       r.jitter_ms, r.start_at_ms, r.end_at_ms, r.catch_up_window_ms, r.overlap_policy,
       s.next_fire_at_ms, s.paused, s.paused_at_ms, s.resumed_at_ms
FROM trigger_schedules s
JOIN trigger_revisions r ON r.trigger_id = s.trigger_id AND r.revision = s.trigger_revision
WHERE s.trigger_id = ?
