-- A retried Run's next attempt waits for its backoff: created claimed with
-- the instant it may start, the Run in retry_wait until then (the
-- cluster's attempts.available_at_ms). The requeue clears it, so the
-- partial index holds only the attempts still waiting and the earliest
-- backoff end is one probe of it, however many Runs wait.
ALTER TABLE attempts ADD COLUMN available_at_ms INTEGER;
CREATE INDEX attempts_backoff ON attempts (available_at_ms) WHERE state = 'claimed' AND available_at_ms IS NOT NULL;
