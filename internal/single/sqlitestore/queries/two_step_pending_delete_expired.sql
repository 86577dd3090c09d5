-- Deletes at most ?2 second steps ended by ?1, the oldest ends first, at
-- each new one: the table holds little more than the steps of the last
-- minutes.
DELETE FROM console_two_step_pending
 WHERE digest IN (SELECT digest FROM console_two_step_pending WHERE expires_at_ms <= ?1
                   ORDER BY expires_at_ms LIMIT ?2)
