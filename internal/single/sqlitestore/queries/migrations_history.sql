-- Applied history in stream order; must be a prefix of the code's stream.
SELECT id, checksum FROM ql_schema_migrations ORDER BY id
