-- An attempt and its run's state and version, read under the write lock
-- before any transition is checked and applied.
SELECT a.run_id, a.state, r.state, r.version, r.last_event_seq, r.execution_revision_id
FROM attempts a JOIN runs r ON r.id = a.run_id
WHERE a.id = ?
