-- When the longest-waiting queued Run was queued: one probe of the partial
-- index runs_queued_since (queued Runs only), however many Runs there are.
SELECT min(queued_at_ms) FROM runs WHERE state = 'queued'
