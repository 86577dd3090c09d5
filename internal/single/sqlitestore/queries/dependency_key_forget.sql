-- Deletes actor ?1's key ?2 while its change is not done: a refused change
-- leaves no key, so a retry tries again; a done one is never deleted here.
DELETE FROM dependency_keys WHERE actor = ?1 AND idem_key = ?2 AND run_id = ''
