-- The columns of a run listing, ending at FROM: RunList composes the
-- filters a request gives after it (runs_read.go), so each one is a seek
-- or range of its index — runs_project or runs_trigger (each ending in
-- id), or the primary key for the keyset cursor and the time window —
-- rather than a catch-all "? = '' OR …" plan that scans the whole table.
-- The column after rerun_of is the request that admitted the Run, as its
-- run.created event records it (NULL for the clock's): one probe of
-- run_events' key. The next two are how a Run that failed, timed out or
-- was lost ended, its last attempt's error and exit codes, so a listing
-- says it without reading each Run again: a probe of attempts' (run_id,
-- number) key each, for such a Run only.
-- After them, the trigger's display title now (a title is the trigger's,
-- not a revision's): one probe of triggers' key. Last, a finished Run's
-- attempts' own run times added up (run.Run.RanMs): a range of attempts'
-- (run_id, number) key, the Run's few attempts.
SELECT id, project_id, task_id, task_revision, trigger_id, trigger_revision, execution_revision_id, idempotency_key,
       scheduled_for_ms, due_at_ms, state, version, last_event_seq, created_at_ms, queued_at_ms, updated_at_ms, finished_at_ms,
       (SELECT p.name FROM projects p WHERE p.id = runs.project_id),
       (SELECT tr.name FROM trigger_revisions tr WHERE tr.trigger_id = runs.trigger_id AND tr.revision = runs.trigger_revision),
       (SELECT k.name FROM task_revisions k WHERE k.task_id = runs.task_id AND k.revision = runs.task_revision),
       rerun_of,
       (SELECT json_extract(e.payload, '$.manual') FROM run_events e WHERE e.run_id = runs.id AND e.seq = 1),
       CASE WHEN state IN ('failed', 'timed_out', 'lost') THEN (SELECT a.error_code FROM attempts a WHERE a.run_id = runs.id ORDER BY a.number DESC LIMIT 1) END,
       CASE WHEN state IN ('failed', 'timed_out', 'lost') THEN (SELECT a.exit_code FROM attempts a WHERE a.run_id = runs.id ORDER BY a.number DESC LIMIT 1) END,
       (SELECT t.title FROM triggers t WHERE t.id = runs.trigger_id),
       CASE WHEN finished_at_ms IS NOT NULL THEN (SELECT sum(a.finished_at_ms - a.started_at_ms) FROM attempts a
                                                   WHERE a.run_id = runs.id AND a.started_at_ms IS NOT NULL AND a.finished_at_ms IS NOT NULL) END
FROM runs
