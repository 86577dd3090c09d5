-- A retried Run queued again when its backoff ended waits in the queue
-- from now: queued_at_ms is when its current wait began, so monitoring's
-- oldest queued Run (runs_queued_since) does not count its earlier
-- attempts and backoff as time spent waiting for a start.
UPDATE runs SET queued_at_ms = ?1 WHERE id = ?2 AND state = 'queued'
