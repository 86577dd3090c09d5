-- Appends an immutable trigger revision pinned to one task revision.
INSERT INTO trigger_revisions (trigger_id, revision, project_id, task_id, task_revision, task_content_digest,
  name, enabled, expression, timezone, misfire_policy, content_digest, mutation_id, created_at_ms,
  jitter_ms, start_at_ms, end_at_ms, catch_up_window_ms, overlap_policy)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
