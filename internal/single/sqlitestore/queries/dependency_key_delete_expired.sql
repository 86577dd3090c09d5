-- Deletes at most ?2 dependencies changes' keys claimed at or before ?1
-- (their lifetime over), the oldest first, at each new claim: the table
-- holds little more than the keys of the last day.
DELETE FROM dependency_keys
 WHERE (actor, idem_key) IN (SELECT actor, idem_key FROM dependency_keys WHERE claimed_at_ms <= ?1
                              ORDER BY claimed_at_ms LIMIT ?2)
