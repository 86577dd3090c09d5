-- Keeps a kind's mirror, replacing the one set before: one row per kind,
-- the newest setting.
INSERT INTO dependency_mirrors (kind, registry, proxy, at_ms, actor) VALUES (?1, ?2, ?3, ?4, ?5)
ON CONFLICT (kind) DO UPDATE SET registry = excluded.registry, proxy = excluded.proxy, at_ms = excluded.at_ms, actor = excluded.actor
