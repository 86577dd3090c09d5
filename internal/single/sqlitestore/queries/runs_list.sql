-- One page of runs, newest first (ids are UUIDv7, so id order is admission
-- order); an empty filter matches everything; ?4 is the previous page's last
-- id; ?6 and ?7 bound the ids to a time window [from, to).
SELECT id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id, idempotency_key,
       scheduled_for_ms, due_at_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms, finished_at_ms,
       (SELECT p.name FROM projects p WHERE p.id = runs.project_id),
       (SELECT tr.name FROM trigger_revisions tr WHERE tr.trigger_id = runs.trigger_id AND tr.revision = runs.trigger_revision),
       rerun_of
FROM runs
WHERE (?1 = '' OR project_id = ?1) AND (?2 = '' OR trigger_id = ?2) AND (?3 = '' OR state = ?3) AND (?4 = '' OR id < ?4)
  AND (?6 = '' OR id >= ?6) AND (?7 = '' OR id < ?7)
ORDER BY id DESC
LIMIT ?5
