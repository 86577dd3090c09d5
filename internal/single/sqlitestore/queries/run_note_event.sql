-- An event without a run state change (attempt.started) still advances the
-- run's version and sequence together, under the same version fence.
UPDATE runs SET version = version + 1, last_event_seq = last_event_seq + 1, updated_at_ms = ?1
WHERE id = ?2 AND version = ?3
