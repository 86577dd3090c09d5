-- Every schema object QingLong owns, in a stable order: readiness demands
-- this list equal, text for text, the one a fresh migration produces, so a
-- table, column, index, constraint or trigger too many fails like one too
-- few.
SELECT type, name, tbl_name, coalesce(sql, '')
FROM sqlite_schema
WHERE name NOT LIKE 'sqlite_%'
ORDER BY type, name
