-- Records the Run of the change that claimed actor ?1's key ?2.
UPDATE dependency_keys SET run_id = ?3 WHERE actor = ?1 AND idem_key = ?2 AND run_id = ''
