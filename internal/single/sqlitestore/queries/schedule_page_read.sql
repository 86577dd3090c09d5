-- Re-reads, under the write lock and in one statement, everything each
-- ticket of a page was taken against, exactly as schedule_commit_read reads
-- it for one ticket. ?1 is a JSON array with one [position, trigger id,
-- idempotency key] per ticket (the key null unless the decision admits);
-- each answer carries its position and whether the occurrence it would
-- admit already has its Run, so the page's write never meets a taken key.
-- A ticket whose schedule row or definitions are gone has no answer. One
-- descent of each primary key per ticket, driven by the JSON list.
SELECT p.status, t.current_revision, t.task_id,
       r.project_id, r.task_id, r.task_revision, r.task_content_digest, r.name, r.enabled,
       r.expression, r.timezone, r.misfire_policy, r.content_digest, r.created_at_ms,
       r.jitter_ms, r.start_at_ms, r.end_at_ms, r.catch_up_window_ms, r.overlap_policy,
       k.current_revision, kr.project_id, kr.spec_json, kr.content_digest,
       s.trigger_revision, s.state_version, s.next_fire_at_ms, s.paused, s.paused_at_ms, s.resumed_at_ms,
       j.value ->> 0, EXISTS (SELECT 1 FROM runs u WHERE u.idempotency_key = j.value ->> 2)
FROM jsonb_each(?1) j
JOIN trigger_schedules s ON s.trigger_id = j.value ->> 1
JOIN projects p ON p.id = s.project_id
JOIN triggers t ON t.id = s.trigger_id
JOIN trigger_revisions r ON r.trigger_id = s.trigger_id AND r.revision = s.trigger_revision
JOIN tasks k ON k.id = r.task_id
JOIN task_revisions kr ON kr.task_id = r.task_id AND kr.revision = r.task_revision
