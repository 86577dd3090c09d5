-- Statements of the migration runner. Each guards one step of
-- docs/architecture.md, "Schema, roles and publishing".

-- name: MigrateLock
-- One migrator at a time per database ($1 the runner's advisory lock key).
SELECT pg_advisory_lock($1)

-- name: MigrateUnlock
-- Releases the migrator's advisory lock (it dies with the session anyway).
SELECT pg_advisory_unlock($1)

-- name: SchemaExists
-- First install: the schema is created by the runner, not a migration.
SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = $1)

-- name: HistoryPresent
-- History is absent before pg-0001 ran.
SELECT to_regclass('qinglong.schema_migrations') IS NOT NULL

-- name: HistoryRead
-- The applied migrations in order; their checksums must match the binary's.
SELECT seq, id, checksum FROM qinglong.schema_migrations ORDER BY seq

-- name: HistoryInsert
-- Applied migrations are recorded with the database clock, in the
-- migration's own transaction.
INSERT INTO qinglong.schema_migrations (seq, id, checksum, applied_at_ms)
VALUES ($1, $2, $3, {{now_ms}})

-- name: CapabilityPresent
-- The capability table is absent before pg-0001 ran.
SELECT to_regclass('qinglong.schema_capability') IS NOT NULL

-- name: CapabilityRead
-- Capability fence: each migration asserts the previous row first.
SELECT version, name FROM qinglong.schema_capability WHERE component = $1

-- name: CapabilityAdvance
-- Capability fence: each migration advances the row in the same
-- transaction that asserted it.
INSERT INTO qinglong.schema_capability (component, version, name, updated_at_ms)
VALUES ($1, $2, $3, {{now_ms}})
    ON CONFLICT (component) DO UPDATE SET version = EXCLUDED.version, name = EXCLUDED.name, updated_at_ms = EXCLUDED.updated_at_ms
