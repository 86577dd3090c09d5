-- The queued Runs of a page's admitted occurrences, one statement for the
-- page, each exactly as run_admit_insert writes one (version 2, two
-- events, not waiting: an admission under another overlap policy is
-- committed on its own). ?1 is a JSON array with one [run id, project id,
-- task id, task revision, trigger id, trigger revision, execution
-- revision id, idempotency key, scheduled time, due time, attempt id] per
-- admission; ?2 the page's time. The page's re-read found no Run holding
-- any of the keys under the same write lock, so a taken key is an error
-- that fails the whole statement (the page is then committed decision by
-- decision), never a row silently left out.
INSERT INTO runs (id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id,
  idempotency_key, scheduled_for_ms, due_at_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms,
  waits_for_previous, rerun_of)
SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6,
       value ->> 7, value ->> 8, value ->> 9, 'queued', 2, 2, ?2, ?2, ?2, 0, NULL
FROM jsonb_each(?1)
