-- Deletes at most ?2 sessions expired by ?1, the oldest expiries first.
DELETE FROM console_sessions
 WHERE digest IN (SELECT digest FROM console_sessions WHERE expires_at_ms <= ?1
                   ORDER BY expires_at_ms LIMIT ?2)
