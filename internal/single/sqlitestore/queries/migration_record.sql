-- Records one applied migration; the primary key makes a second application
-- of the same id fail.
INSERT INTO ql_schema_migrations (id, checksum, applied_at_ms) VALUES (?, ?, ?)
