-- A run state change: version and last_event_seq advance together (one
-- event per change) and only from the version read, so two writers can never
-- both apply a change.
UPDATE runs
SET state = ?1, version = version + 1, last_event_seq = last_event_seq + 1, updated_at_ms = ?2, finished_at_ms = ?3
WHERE id = ?4 AND version = ?5
