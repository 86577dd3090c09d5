-- Appends the audit record of a publish, in its transaction.
INSERT INTO publish_audit (project, actor, summary, at_ms) VALUES (?1, ?2, ?3, ?4)
