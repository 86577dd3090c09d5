-- Ends a principal's oldest sessions so that ?2 remain, before its new one
-- is stored (the bound of sessions per user or token).
DELETE FROM console_sessions
 WHERE digest IN (SELECT digest FROM console_sessions WHERE principal = ?1
                   ORDER BY created_at_ms DESC, digest LIMIT -1 OFFSET ?2)
