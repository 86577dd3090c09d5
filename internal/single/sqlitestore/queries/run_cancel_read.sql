-- A run's state and its latest attempt, read under the write lock before a
-- cancellation is checked: the dispatcher starts an attempt only from
-- claimed under the same lock, so the two can never both win.
SELECT r.state,
       (SELECT a.id FROM attempts a WHERE a.run_id = r.id ORDER BY a.number DESC LIMIT 1)
FROM runs r WHERE r.id = ?
