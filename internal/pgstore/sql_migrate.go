package pgstore

// Statements of the migration runner. Each guards one step of docs/architecture.md, "Schema, roles and publishing".

const (
	// One migrator at a time per database.
	sqlMigrateLock   = `SELECT pg_advisory_lock($1)`
	sqlMigrateUnlock = `SELECT pg_advisory_unlock($1)`

	// First install: the schema is created by the runner, not a migration.
	sqlSchemaExists = `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = $1)`

	// History is absent before pg-0001 ran.
	sqlHistoryPresent = `SELECT to_regclass('qinglong.schema_migrations') IS NOT NULL`
	sqlHistoryRead    = `SELECT seq, id, checksum FROM qinglong.schema_migrations ORDER BY seq`
	// Applied migrations are recorded with the database clock.
	sqlHistoryInsert = `INSERT INTO qinglong.schema_migrations (seq, id, checksum, applied_at_ms)
		VALUES ($1, $2, $3, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)`

	// Capability fence: each migration asserts the previous row, then
	// advances it in the same transaction.
	sqlCapabilityPresent = `SELECT to_regclass('qinglong.schema_capability') IS NOT NULL`
	sqlCapabilityRead    = `SELECT version, name FROM qinglong.schema_capability WHERE component = $1`
	sqlCapabilityAdvance = `INSERT INTO qinglong.schema_capability (component, version, name, updated_at_ms)
		VALUES ($1, $2, $3, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)
		ON CONFLICT (component) DO UPDATE SET version = EXCLUDED.version, name = EXCLUDED.name, updated_at_ms = EXCLUDED.updated_at_ms`
)
