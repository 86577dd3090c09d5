-- What decides whether the Run of an attempt that just ended is retried,
-- read under the write lock: the attempt's number and executor, the
-- stored command of the execution revision the Run was admitted with (its
-- retry policy), and whether a cancel was asked of the Run (the intent
-- wins: no retry follows it).
SELECT a.number, a.executor, e.command_json,
       EXISTS (SELECT 1 FROM run_events ev WHERE ev.run_id = a.run_id AND ev.name = 'run.cancel_requested')
FROM attempts a
JOIN runs r ON r.id = a.run_id
JOIN execution_revisions e ON e.id = r.execution_revision_id
WHERE a.id = ?
