-- The Run a manual request's idempotency key names, if any, with the force
-- its request asked (recorded in its run.created event, seq 1): a request
-- asked again finds what it made before anything else is verified
-- (manual.go, replay).
SELECT r.id, coalesce(json_extract(e.payload, '$.force'), 0)
  FROM runs r
  LEFT JOIN run_events e ON e.run_id = r.id AND e.seq = 1 AND e.name = 'run.created'
 WHERE r.idempotency_key = ?
