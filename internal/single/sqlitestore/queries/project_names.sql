-- The first ?1 project names in name order, each with its display title,
-- for a message naming the projects that exist and the console's pickers.
SELECT name, title FROM projects ORDER BY name LIMIT ?1
