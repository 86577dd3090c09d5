-- A database without migration history must be empty: QingLong never adopts
-- a file that holds someone else's tables.
SELECT count(*) FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'
