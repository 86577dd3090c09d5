-- Creates the first console account, only while there is none: in the
-- writer's one transaction, so two first accounts at once leave one.
INSERT INTO console_users (id, name, role, password_hash, created_at_ms)
SELECT ?1, ?2, ?3, ?4, ?5
 WHERE NOT EXISTS (SELECT 1 FROM console_users)
