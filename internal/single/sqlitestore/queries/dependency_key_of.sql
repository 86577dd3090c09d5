-- A kept key's change, read by a claim that did not take it: the digest
-- asked first, and its Run ('' while being made).
SELECT digest, run_id FROM dependency_keys WHERE actor = ?1 AND idem_key = ?2
