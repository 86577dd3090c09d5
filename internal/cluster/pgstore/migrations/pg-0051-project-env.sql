-- A project may give every one of its tasks environment variables (its
-- env, task.EncodeEnv's JSON list; '' is none, as every project had
-- before). A task's own variable of the same name wins. Only a secret's
-- name is stored, never its value, which the worker resolves from its
-- own secrets file as the command starts. A change of it is a project
-- update: it publishes no task or trigger revision. A worker's grant
-- carries it beside the execution revision (workers_dispatch.sql), so a
-- Run granted after the change starts with it.
ALTER TABLE qinglong.projects ADD COLUMN env text NOT NULL DEFAULT '';
