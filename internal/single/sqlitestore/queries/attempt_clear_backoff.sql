-- A retried attempt's backoff is over and its Run queued: it leaves the
-- partial index of waiting attempts (attempts_backoff).
UPDATE attempts SET available_at_ms = NULL WHERE id = ? AND state = 'claimed'
