-- The single capability row readiness and every migration assert.
SELECT name, version FROM ql_schema_capability WHERE singleton = 1
