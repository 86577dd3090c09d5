-- The first ?1 project names in name order, for a message naming the
-- projects that exist.
SELECT name FROM projects ORDER BY name LIMIT ?1
