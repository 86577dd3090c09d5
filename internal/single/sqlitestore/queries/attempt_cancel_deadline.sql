-- When a cancel was first asked of the attempt's Run (NULL: never) and
-- when the attempt's deadline passed (its start plus its command's
-- timeout; NULL before it started), read under the write lock where its
-- end is recorded: a cancel asked before the deadline decides the end
-- (cancelled), one asked at or after it finds the command timed out
-- (run.CancelCameFirst), as on the cluster, which compares the same two
-- stamps.
SELECT (SELECT MIN(ev.created_at_ms) FROM run_events ev
        WHERE ev.run_id = a.run_id AND ev.name = 'run.cancel_requested'),
       a.started_at_ms + json_extract(e.command_json, '$.timeoutMs')
FROM attempts a
JOIN runs r ON r.id = a.run_id
JOIN execution_revisions e ON e.id = r.execution_revision_id
WHERE a.id = ?
