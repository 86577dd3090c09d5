-- Project deletion: the log files of the attempts of the Runs in the JSON
-- array ?1 are recorded, under the project's name ?2, before their rows go,
-- so that none is left on disk with nothing naming it.
INSERT OR IGNORE INTO deleted_project_logs (attempt_id, project)
SELECT id, ?2 FROM attempts WHERE run_id IN (SELECT value FROM json_each(?1)) AND log_path <> ''
