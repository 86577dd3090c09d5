-- Declares a package, or replaces the specifier of one declared: a kind
-- and name are one row, whatever version was asked for last.
INSERT INTO dependencies (kind, name, spec, run_id, at_ms, actor, added_at_ms) VALUES (?1, ?2, ?3, '', ?4, ?5, ?4)
ON CONFLICT (kind, name) DO UPDATE SET spec = excluded.spec
