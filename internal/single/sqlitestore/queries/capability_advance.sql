-- Advances the capability exactly one step: the first migration creates the
-- row, every later one moves version N-1 to N and touches zero rows
-- otherwise.
INSERT INTO ql_schema_capability (singleton, name, version) VALUES (1, ?1, ?2)
ON CONFLICT (singleton) DO UPDATE SET version = excluded.version
WHERE ql_schema_capability.name = excluded.name AND ql_schema_capability.version = excluded.version - 1
