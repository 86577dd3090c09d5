-- Appends one event; (run, seq) is the primary key, so a sequence number is
-- never reused.
INSERT INTO run_events (run_id, seq, name, payload, created_at_ms) VALUES (?, ?, ?, ?, ?)
