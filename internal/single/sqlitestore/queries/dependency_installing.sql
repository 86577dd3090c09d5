-- Names the Run that installs a package, declaring it when it is not:
-- the package's state is that Run's from now on.
INSERT INTO dependencies (kind, name, spec, run_id, at_ms, actor, added_at_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?5)
ON CONFLICT (kind, name) DO UPDATE SET spec = excluded.spec, run_id = excluded.run_id, at_ms = excluded.at_ms, actor = excluded.actor
