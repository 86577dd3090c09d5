-- A mutation id already applied to this trigger: replay or drift.
SELECT revision, content_digest, created_at_ms FROM trigger_revisions WHERE trigger_id = ? AND mutation_id = ?
