-- The starting or running attempts of one owner, to be marked lost.
SELECT id FROM attempts WHERE owner = ? AND state IN ('starting', 'running') ORDER BY id
