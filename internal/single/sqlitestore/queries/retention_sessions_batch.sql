-- Retention: console sessions expired by ?1 (the store's clock), at most
-- ?2, the oldest expiries first, through console_sessions_expiry. A live
-- session never matches.
DELETE FROM console_sessions
 WHERE digest IN (SELECT digest FROM console_sessions WHERE expires_at_ms <= ?1
                   ORDER BY expires_at_ms LIMIT ?2)
