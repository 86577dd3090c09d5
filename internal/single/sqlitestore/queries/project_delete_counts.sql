-- Project deletion: what deleting project ?1 removes, in the snapshot (a
-- dry run) or under the write lock (the deletion, which reports it):
-- tasks, triggers, Runs, attempts, events, logs on disk and their bytes,
-- ledger rows (entries and compacted totals), pause records of its
-- triggers, and its notifications.
SELECT (SELECT count(*) FROM tasks WHERE project_id = ?1),
       (SELECT count(*) FROM triggers WHERE project_id = ?1),
       (SELECT count(*) FROM runs WHERE project_id = ?1),
       (SELECT count(*) FROM attempts a JOIN runs r ON r.id = a.run_id WHERE r.project_id = ?1),
       (SELECT count(*) FROM run_events e JOIN runs r ON r.id = e.run_id WHERE r.project_id = ?1),
       (SELECT count(*) FROM attempts a JOIN runs r ON r.id = a.run_id WHERE r.project_id = ?1 AND a.log_path <> ''),
       (SELECT coalesce(sum(a.log_bytes), 0) FROM attempts a JOIN runs r ON r.id = a.run_id WHERE r.project_id = ?1 AND a.log_path <> ''),
       (SELECT count(*) FROM occurrence_ledger WHERE trigger_id IN (SELECT id FROM triggers WHERE project_id = ?1))
         + (SELECT count(*) FROM occurrence_ledger_compacted WHERE trigger_id IN (SELECT id FROM triggers WHERE project_id = ?1)),
       (SELECT count(*) FROM trigger_schedule_audit WHERE trigger_id IN (SELECT id FROM triggers WHERE project_id = ?1)),
       (SELECT count(*) FROM notification_outbox WHERE project_id = ?1)
