-- An admitted occurrence: a queued Run at version 2 with two events
-- (run.created, run.queued). An existing Run of the same occurrence (its
-- unique idempotency key) makes this insert touch no row, which the commit
-- reports instead of creating the occurrence twice. waits_for_previous:
-- admitted under queue_one behind an unfinished Run of its trigger, or
-- under cancel_previous behind the Runs it cancelled.
-- rerun_of: the finished Run a re-run repeats, NULL otherwise.
-- backfilled: a backfill admitted it (monitoring counts its wait apart).
INSERT INTO runs (id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
  idempotency_key, scheduled_for_ms, due_at_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms,
  waits_for_previous, rerun_of, backfilled)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', 2, 2, ?, ?, ?, ?, ?, ?)
ON CONFLICT (idempotency_key) DO NOTHING
