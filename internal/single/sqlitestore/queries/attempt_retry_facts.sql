-- What decides whether the Run of an attempt that just ended is retried,
-- read under the write lock: the attempt's number and executor, and the
-- stored command of the execution revision the Run was admitted with (its
-- retry policy). Whether a cancel was asked (no retry follows it) is
-- attempt_cancel_deadline's.
SELECT a.number, a.executor, e.command_json
FROM attempts a
JOIN runs r ON r.id = a.run_id
JOIN execution_revisions e ON e.id = r.execution_revision_id
WHERE a.id = ?
