-- A project may give every one of its tasks environment variables (its
-- env, task.EncodeEnv's JSON list; '' is none, as every project had
-- before). A task's own variable of the same name wins. Only a secret's
-- name is stored, never its value, which the executor resolves as the
-- command starts. A change of it is a project update: it publishes no
-- task or trigger revision, and the next attempt of every task of the
-- project starts with it (AttemptStart reads it with the plan).
ALTER TABLE projects ADD COLUMN env_json TEXT NOT NULL DEFAULT '';
