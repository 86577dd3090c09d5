-- Statements of the admin role's publishing transactions (SERIALIZABLE),
-- one project at a time, and the by-name reads outside them.

-- name: PublishPrivilege
-- The first statement of every publishing transaction, before anything is
-- read or compared: a role that may not publish (the runtime role, which
-- only reads the catalog) is refused here with insufficient_privilege, so
-- `ql apply` with its URL fails the same whether or not the file changes
-- anything. It writes nothing: LOCK in ROW EXCLUSIVE mode, the lock every
-- INSERT takes and one that conflicts with no other write, needs INSERT,
-- UPDATE, DELETE or TRUNCATE on the table, and of the roles only the admin
-- (and the migration role, its owner) may insert task revisions.
LOCK TABLE qinglong.task_revisions IN ROW EXCLUSIVE MODE

-- name: ProjectStatusForPublish
-- Publishing needs an active project; SSI makes a concurrent archive and
-- publish conflict instead of both committing. Also samples the database
-- clock every timestamp of the transaction uses.
SELECT status, {{now_ms}} FROM qinglong.projects WHERE id = $1

-- name: ProjectByName
-- A project by its unique name.
SELECT id, name, status, coalesce(notifications, ''), title, max_running, env FROM qinglong.projects WHERE name = $1

-- name: ProjectLock
-- The row lock serialises saves of one project. NO KEY UPDATE, not
-- UPDATE: an admission inserting a Run takes KEY SHARE on its project (the
-- foreign key) after locking its schedule row, while this publish locks the
-- project first and then that schedule row; FOR UPDATE would conflict with
-- KEY SHARE and deadlock the two, NO KEY UPDATE does not.
SELECT name, status, coalesce(notifications, ''), title, max_running, env FROM qinglong.projects WHERE id = $1 FOR NO KEY UPDATE

-- name: ProjectInsert
-- A new project; created and updated at the database clock. Notification
-- settings '' are none (NULL).
INSERT INTO qinglong.projects (id, name, status, notifications, created_at_ms, updated_at_ms, title, max_running, env)
VALUES ($1, $2, $3, nullif($4::text, ''), {{now_ms}}, {{now_ms}}, $5, $6, $7)

-- name: ProjectUpdate
-- Renames or (re)activates a locked project, or replaces its notification
-- settings, its title, its cap on Runs at once or its env; updated_at_ms
-- never goes below created_at_ms even if the database clock went back.
UPDATE qinglong.projects SET name = $2, status = $3, notifications = nullif($4::text, ''), title = $5, max_running = $6, env = $7,
       updated_at_ms = greatest(created_at_ms, {{now_ms}})
 WHERE id = $1

-- name: TaskCurrentByName
-- A task's current revision by project and name: the head names the
-- revision, so an older revision is never read as current.
SELECT r.task_id, r.project_id, r.revision, r.name, r.enabled, r.labels, r.command, r.content_digest, r.mutation_id, r.created_at_ms
  FROM qinglong.tasks t JOIN qinglong.task_revisions r ON r.task_id = t.id AND r.revision = t.current_revision
 WHERE t.project_id = $1 AND t.name = $2

-- name: TriggerCurrentByName
-- A trigger's current revision by project and name, read through its head
-- like TaskCurrentByName.
SELECT r.trigger_id, r.project_id, r.task_id, r.revision, r.task_revision, r.task_content_digest, r.name, r.enabled,
       r.cron_expression, r.cron_timezone, r.misfire_policy, r.content_digest, r.mutation_id, r.created_at_ms,
       r.jitter_ms, r.start_at_ms, r.end_at_ms, r.catch_up_window_ms, r.overlap_policy
  FROM qinglong.triggers t JOIN qinglong.trigger_revisions r ON r.trigger_id = t.id AND r.revision = t.current_revision
 WHERE t.project_id = $1 AND t.name = $2

-- name: TitlesOfProject
-- The display titles of a project's tasks and triggers that have one
-- (kind is task or trigger). A title is the head's, not a revision's.
SELECT 'task', name, title FROM qinglong.tasks WHERE project_id = $1 AND title <> ''
UNION ALL
SELECT 'trigger', name, title FROM qinglong.triggers WHERE project_id = $1 AND title <> ''

-- name: TaskTitleSet
-- Sets a task's display title on its head: no revision is published, so
-- nothing that pins the task moves.
UPDATE qinglong.tasks SET title = $1, updated_at_ms = greatest(created_at_ms, {{now_ms}})
 WHERE project_id = $2 AND name = $3

-- name: TriggerTitleSet
-- Sets a trigger's display title on its head: no revision is published,
-- so the schedule row keeps its cursor and state_version, its
-- schedulable flag is not recomputed, and the occurrence ledger is not
-- written.
UPDATE qinglong.triggers SET title = $1, updated_at_ms = greatest(created_at_ms, {{now_ms}})
 WHERE project_id = $2 AND name = $3
