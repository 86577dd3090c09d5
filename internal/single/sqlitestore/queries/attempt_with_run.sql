-- An attempt and its run's state and version, read under the write lock
-- before any transition is checked and applied, with the time of the run's
-- latest event, before which no later change of the run may be stamped.
SELECT a.run_id, a.state, r.state, r.version, r.last_event_seq, r.execution_revision_id,
       coalesce((SELECT e.created_at_ms FROM run_events e WHERE e.run_id = r.id AND e.seq = r.last_event_seq), 0)
FROM attempts a JOIN runs r ON r.id = a.run_id
WHERE a.id = ?
