-- Whether any migration ever ran (the history table is created by the first).
SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'ql_schema_migrations'
