-- Lists the declared packages (the Dependencies page), by kind and name.
SELECT kind, name, spec, run_id, at_ms, actor, added_at_ms FROM dependencies ORDER BY kind, name
